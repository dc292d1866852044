// Command replicas benchmarks mtk scaled out as `make replicas` runs it: `mtk serve --role api`
// processes behind HAProxy (configured by scripts/replicas.sh haproxy-config) with Redis, and
// `mtk serve --role worker` processes draining the outboxes in MTK_DRAIN_PARTITIONS partitions,
// on fresh databases of its own (mtk_bench_replicas on the servers of MTK_POSTGRES_URL and
// MTK_CLICKHOUSE_URL).
//
// The API run sends events (closed loop, as benchmarks/ingest does) and dashboard queries (the
// query benchmark's mix, through internal/loadgen, with the answer cache on and off) to one
// replica directly, then through HAProxy to one and to three replicas. On a machine with few
// cores the replicas share those cores: the rows show the cost of the extra hop and processes,
// not a speed-up. The cells take turns for -rounds rounds, each keeping its best figures.
//
// The drain run queues -backlog events in the event outbox while no worker runs (an outage's
// backlog), over 64 projects, then starts as many workers as partitions and times them until
// the outbox is empty, and checks that ClickHouse holds each event once.
//
// With -capacity it measures instead what one event, one order and one dashboard query cost the
// stores (see capacity.go) and prints the capacity model's table; with -shared, the ClickHouse
// statements per dashboard request of one replica and of three with and without shared answers
// (see shared.go).
//
//	go run ./benchmarks/replicas [-mtk bin/mtk] [-duration 4s] [-rounds 2] [-clients 64] [-viewers 16] [-replicas 1,3] [-backlog 200000] [-partitions 1,2,4] [-rows 1000000]
//	go run ./benchmarks/replicas -capacity [-duration 4s]
//	go run ./benchmarks/replicas -shared [-viewers 16] [-versions 20] [-rows 1000000]
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mtk/internal/config"
)

const dbName = "mtk_bench_replicas"

// flags are the run's settings.
type flags struct {
	mtk                  string
	duration             time.Duration
	clients, viewers     int
	rounds               int
	replicas, partitions []int
	backlog, rows        int
	capacity, skipAPI    bool
	shared               bool
	versions             int
	skipDrain            bool
	redisURL             string
}

func main() {
	var f flags
	replicas := flag.String("replicas", "1,3", "API replicas behind HAProxy, one row each (1 also gets a row without HAProxy)")
	partitions := flag.String("partitions", "1,2,4", "drain partitions, one row each, each with as many worker processes")
	flag.StringVar(&f.mtk, "mtk", "bin/mtk", "the mtk binary the replicas and workers run (make build)")
	flag.DurationVar(&f.duration, "duration", 4*time.Second, "how long each API cell sends (events; each dashboard cell half of it)")
	flag.IntVar(&f.clients, "clients", 64, "concurrent event clients")
	flag.IntVar(&f.viewers, "viewers", 16, "concurrent dashboard clients")
	flag.IntVar(&f.rounds, "rounds", 2, "rounds of the API cells, taking turns; each cell keeps its best")
	flag.IntVar(&f.backlog, "backlog", 200000, "events waiting in the outbox when the drain run's workers start")
	flag.IntVar(&f.rows, "rows", 1000000, "generated ad-fact rows the dashboard queries read")
	flag.BoolVar(&f.capacity, "capacity", false, "measure the stores' cost per event, order, dashboard query and request instead (the capacity model)")
	flag.BoolVar(&f.shared, "shared", false, "measure instead the ClickHouse statements per request of three replicas with and without shared answers (shared.go)")
	flag.IntVar(&f.versions, "versions", 20, "data versions the -shared cells read at, the version moved before each")
	flag.BoolVar(&f.skipAPI, "no-api", false, "skip the API run")
	flag.BoolVar(&f.skipDrain, "no-drain", false, "skip the drain run")
	flag.StringVar(&f.redisURL, "redis", cmp.Or(config.FromEnv().RedisURL, "redis://127.0.0.1:16379"), "the Redis the replicas share (default MTK_REDIS_URL, or scripts/services.sh's)")
	flag.Parse()
	var err error
	if f.replicas, err = positives(*replicas); err == nil {
		f.partitions, err = positives(*partitions)
	}
	if err == nil && (f.clients < 1 || f.viewers < 1 || f.rounds < 1 || f.backlog < 1 || f.rows < 1000 || f.duration <= 0 || f.versions < 1) {
		err = errors.New("-clients, -viewers, -rounds, -backlog, -duration and -versions must be positive, -rows at least 1000")
	}
	if err == nil {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		switch {
		case f.capacity:
			err = runCapacity(ctx, f)
		case f.shared:
			err = runShared(ctx, f)
		default:
			err = run(ctx, f)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "replicas:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, f flags) (err error) {
	if _, err := os.Stat(f.mtk); err != nil {
		return fmt.Errorf("%s: %w (make build)", f.mtk, err)
	}
	start := time.Now()
	env, err := prepare(ctx, f)
	if err != nil {
		return err
	}
	defer func() { env.close(err == nil) }()
	fmt.Printf("prepared in %s (fresh databases %s, %d ad-fact rows for the dashboard)\n", time.Since(start).Round(100*time.Millisecond), dbName, f.rows)
	var apiRows []apiRow
	if !f.skipAPI {
		if apiRows, err = runAPI(ctx, env, f); err != nil {
			return err
		}
	}
	var drainRows []drainRow
	if !f.skipDrain {
		if drainRows, err = runDrains(ctx, env, f); err != nil {
			return err
		}
	}
	printTables(apiRows, drainRows)
	fmt.Printf("total %s\n", time.Since(start).Round(time.Second))
	return nil
}

// positives reads a comma-separated list of positive whole numbers.
func positives(s string) ([]int, error) {
	var out []int
	for _, v := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want positive whole numbers, comma-separated", s)
		}
		out = append(out, n)
	}
	return out, nil
}
