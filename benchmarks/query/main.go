// Command query is the query benchmark of the engine (make bench): it fills its own databases
// with N generated raw ad facts, serves the API in this process on a loopback port with rate
// limits off, and measures a fixed dashboard mix over HTTP at several concurrencies, next to
// the same compiled SQL sent straight to ClickHouse (the floor) and the same queries planned on
// facts_raw (what the rollups save). It prints a markdown table and writes JSON.
//
//	go run ./benchmarks/query -rows 10000000 -out benchmarks/results/query.json
//
// benchmarks/README.md explains the figures.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"mtk/engine"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/platform"
)

type flags struct {
	rows, days, warmup, maxRequests int
	rounds                          int
	seed                            int64
	duration                        time.Duration
	clients, rawClients             []int
	only                            []string
	out, dbName, cpuProfile         string
	fresh                           bool
}

func parseFlags() (flags, error) {
	var f flags
	var clients, rawClients, only string
	flag.IntVar(&f.rows, "rows", 10_000_000, "raw ad-fact rows to generate")
	flag.IntVar(&f.days, "days", 120, "days the rows spread over (the mix reads the last 90)")
	flag.Int64Var(&f.seed, "seed", 1, "generator seed")
	flag.DurationVar(&f.duration, "duration", 5*time.Second, "time per cell (query × clients × path)")
	flag.IntVar(&f.maxRequests, "requests", 20_000, "at most this many requests per cell (0: no limit)")
	flag.IntVar(&f.warmup, "warmup", 20, "requests per query and path before measuring")
	flag.IntVar(&f.rounds, "rounds", 3, "rounds each cell's duration is split into, the paths taking turns, so that other work on the machine weighs on them alike")
	flag.StringVar(&clients, "clients", "1,8,32", "concurrent clients, comma-separated")
	flag.StringVar(&rawClients, "raw-clients", "1", "concurrencies at which the forced-raw variant runs (empty: none); raw statements at many clients load the shared ClickHouse for long")
	flag.StringVar(&only, "queries", "", "measure only these rows of the table, comma-separated (default: every query and the mix)")
	flag.StringVar(&f.out, "out", "benchmarks/results/query.json", "JSON output file")
	flag.StringVar(&f.dbName, "db", "mtk_bench", "the benchmark's own PostgreSQL and ClickHouse database: mtk_bench or mtk_bench_query…")
	flag.BoolVar(&f.fresh, "fresh", false, "regenerate the ClickHouse data even when the marker says it matches")
	flag.StringVar(&f.cpuProfile, "cpuprofile", "", "write a CPU profile of the measured cells (client and server) to this file")
	flag.Parse()
	var err error
	if f.clients, err = intList(clients); err != nil {
		return f, fmt.Errorf("-clients: %w", err)
	}
	if f.rawClients, err = intList(rawClients); rawClients != "" && err != nil {
		return f, fmt.Errorf("-raw-clients: %w", err)
	}
	if only != "" {
		f.only = strings.Split(only, ",")
	}
	switch {
	case f.rows < 1:
		return f, errors.New("-rows: at least 1")
	case f.duration <= 0:
		return f, errors.New("-duration: must be positive")
	case f.rounds < 1:
		return f, errors.New("-rounds: at least 1")
	case !validName(f.dbName):
		return f, fmt.Errorf("-db %q: want mtk_bench or mtk_bench_query… (a-z, 0-9, _)", f.dbName)
	}
	return f, checkDates(f.days)
}

func intList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < 1 || n > 256 {
			return nil, fmt.Errorf("%q is not a number from 1 to 256", part)
		}
		out = append(out, n)
	}
	return out, nil
}

func main() {
	log.SetFlags(log.Ltime)
	f, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, f); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, f flags) error {
	began := time.Now()
	env := config.FromEnv()
	pg, err := openPostgres(ctx, env.PostgresURL, f.dbName)
	if err != nil {
		return err
	}
	defer pg.Close()
	store := platform.NewStore(pg, clock.Real{})
	t, err := ensureTenant(ctx, store)
	if err != nil {
		return err
	}
	defer store.RevokeAPIKey(context.WithoutCancel(ctx), t.key.ID) //nolint:errcheck // a leftover key of a bench database
	ch, chURL, err := openClickHouse(ctx, env.ClickHouseURL, f.dbName, false)
	if err != nil {
		return err
	}
	defer ch.Close()
	data, err := ensureData(ctx, ch, f.dbName, dataSpec{Seed: f.seed, Rows: f.rows, Days: f.days}, t, f.fresh)
	if err != nil {
		return err
	}
	// The server gets its own ClickHouse pool, as `mtk serve` has; the floor uses ch.
	serverCH, err := db.OpenClickHouse(ctx, chURL)
	if err != nil {
		return err
	}
	defer serverCH.Close()
	pgURL, _ := withDatabase(env.PostgresURL, f.dbName)
	// The service as `mtk serve` makes it: its settings also go with the floor's statements.
	svc := engine.New(serverCH, engine.Options{Clock: clock.Real{}})
	srv, err := startServer(pg, serverCH, svc, chURL, pgURL)
	if err != nil {
		return err
	}
	defer srv.close() //nolint:errcheck

	last := dataStart.AddDate(0, 0, f.days-1)
	mix := dashboardMix(t.project.ID, last)
	scope := engine.Scope{ProjectID: t.project.ID, Currency: t.project.Currency, TimeZone: t.project.Timezone,
		Tier: t.workspace.Tier}
	for _, c := range t.connections {
		scope.ConnectionIDs = append(scope.ConnectionIDs, c.ID)
	}
	maxClients := slices.Max(f.clients)
	httpP, err := newHTTPPath(srv, t.key.Token, mix, maxClients)
	if err != nil {
		return err
	}
	floor, err := compileMix(ch, svc, scope, mix, time.Now())
	if err != nil {
		return err
	}
	raw, err := compileMix(ch, svc, scope, mix, time.Now(), engine.ForceRaw())
	if err != nil {
		return err
	}

	rep := report{
		Command: strings.Join(os.Args, " "), Started: began.UTC().Format(time.RFC3339), LoadStart: loadAvg(),
		Machine: machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version()},
		Settings: runSettings{Rows: f.rows, Days: f.days, Seed: f.seed, DurationS: f.duration.Seconds(),
			MaxRequests: f.maxRequests, Rounds: f.rounds, Clients: f.clients, RawClients: f.rawClients, Warmup: f.warmup},
		Data: data,
	}
	if err := ch.QueryRow(ctx, "SELECT version()").Scan(&rep.Machine.ClickHouse); err != nil {
		return err
	}
	log.Printf("warming up: %d requests per query on each path", f.warmup)
	for i, q := range mix {
		rows, err := httpP.check(ctx, i)
		if err != nil {
			return fmt.Errorf("%s: %w", q.Name, err)
		}
		body, err := json.Marshal(q.Input)
		if err != nil {
			return err
		}
		rep.Queries = append(rep.Queries, queryReport{Name: q.Name, About: q.About, Body: string(body), Table: floor.tables[i],
			Rows: rows, SQL: floor.stmts[i].SQL, RawTable: raw.tables[i]})
		for n := 0; n < f.warmup; n++ {
			for _, send := range []sender{httpP.send, floor.send, raw.send} {
				if err := send(ctx, i); err != nil {
					return fmt.Errorf("warm-up %s: %w", q.Name, err)
				}
			}
		}
	}

	if f.cpuProfile != "" {
		stopProfile, err := startProfile(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	rep.Results, err = measure(ctx, f, workloads(mix), paths{http: httpP.send, floor: floor.send, raw: raw.send})
	if err != nil {
		return err
	}
	rep.Targets = evaluate(rep.Results)
	rep.LoadEnd = loadAvg()
	rep.Seconds = round(time.Since(began).Seconds(), 1)
	markdown(os.Stdout, rep)
	if err := writeJSON(f.out, rep); err != nil {
		return err
	}
	log.Printf("wrote %s", f.out)
	return nil
}
