// Command floorvariants looks for what separates mtk's HTTP reader (internal/chhttp) from the
// floor of issue 41 (a statement sent straight to ClickHouse's HTTP interface with the engine's
// settings). It sends bound statements (the floor run's -floor-sql files) on request variants
// that go one step at a time from the floor's request (default format) to the reader's (Native,
// wait_end_of_query, buffer_size, query_id, log_queries), and through the reader itself (its
// decode included), every statement on every variant in a fresh random order each round, and
// prints each variant's p50 and its ratio to the floor's; with -logged, also the server's
// query_duration_ms per variant (system.query_log), to tell server time from the client's.
//
//	go run ./benchmarks/query -floor -floor-sql /tmp/floorsql ... # writes <tile>.sql
//	go run ./benchmarks/floorvariants -rounds 150 [-logged] [-own-conns] /tmp/floorsql/cards.sql /tmp/floorsql/campaigns.sql
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"mtk/engine"
	"mtk/internal/chhttp"
)

// statement is one bound statement, named for its file.
type statement struct{ name, sql string }

// variant is one way of sending a statement: a request with params (on the shared client, or
// on hc, a connection of its own), or the reader.
type variant struct {
	name   string
	params url.Values
	hc     *http.Client
	reader *chhttp.Client
}

func main() {
	base := flag.String("ch-http", "http://127.0.0.1:18123", "ClickHouse's HTTP interface")
	db := flag.String("db", "mtk_bench_query_dashboard", "the database the statements read (the dashboard benchmark's)")
	rounds := flag.Int("rounds", 150, "measured rounds")
	warmup := flag.Int("warmup", 10, "unmeasured rounds first")
	logged := flag.Bool("logged", false, "log_queries=1 on every variant, and print each one's query_duration_ms")
	own := flag.Bool("own-conns", false, "every request variant on a connection of its own (by default they share one, the reader has its own)")
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 1 {
		log.Fatal("usage: floorvariants [flags] tile.sql ...")
	}
	var stmts []statement
	for _, p := range flag.Args() {
		b, err := os.ReadFile(p)
		if err != nil {
			log.Fatal(err)
		}
		stmts = append(stmts, statement{strings.TrimSuffix(filepath.Base(p), ".sql"), strings.TrimSpace(string(b))})
	}
	// The engine's settings for a rollup, as the floor run sends them with every path.
	settings := engine.New(nil, engine.Options{}).Settings("")
	if *logged {
		settings["log_queries"] = 1
	}
	variants, err := makeVariants(*base, *db, settings, *own)
	if err != nil {
		log.Fatal(err)
	}
	since := time.Now().Add(-time.Second) // query_log's event_time is in seconds
	lat := run(context.Background(), *base, stmts, variants, settings, *rounds, *warmup)
	fmt.Printf("\nfloorvariants: %d rounds, load %s; p50 ms (÷ floor)\n\n| variant |", *rounds, loadAvg())
	for _, s := range stmts {
		fmt.Printf(" %s |", s.name)
	}
	fmt.Printf("\n|---|%s\n", strings.Repeat("--:|", len(stmts)))
	for v := range variants {
		fmt.Printf("| %s |", variants[v].name)
		for s := range stmts {
			fmt.Printf(" %.2f (%.2f) |", p50(lat[s][v]), p50(lat[s][v])/p50(lat[s][0]))
		}
		fmt.Println()
	}
	if *logged {
		if err := serverTimes(*base, stmts, since); err != nil {
			log.Fatal(err)
		}
	}
}

// makeVariants are the floor, the steps from it to the reader's request, single changes to
// the floor, the reader's request on a connection of its own, and two readers (as mtk's, each
// with its own connection).
func makeVariants(base, db string, settings clickhouse.Settings, own bool) ([]variant, error) {
	with := func(kv ...string) url.Values {
		q := url.Values{"database": {db}}
		for k, v := range settings {
			q.Set(k, fmt.Sprint(v))
		}
		for i := 0; i < len(kv); i += 2 {
			q.Set(kv[i], kv[i+1])
		}
		return q
	}
	native := []string{"default_format", "Native"}
	wait := append(slices.Clone(native), "wait_end_of_query", "1")
	buffer := append(slices.Clone(wait), "buffer_size", "4194304")
	id := append(slices.Clone(buffer), "query_id", "")
	readers := append(slices.Clone(id), "log_queries", "1")
	vs := []variant{
		{name: "floor", params: with()},
		{name: "+Native", params: with(native...)},
		{name: "+wait_end_of_query", params: with(wait...)},
		{name: "+buffer_size", params: with(buffer...)},
		{name: "+query_id", params: with(id...)},
		{name: "+log_queries (the reader's request)", params: with(readers...)},
		{name: "floor +wait_end_of_query only", params: with("wait_end_of_query", "1")},
		{name: "floor +query_id only", params: with("query_id", "")},
		{name: "the reader's request, own connection", params: with(readers...), hc: ownClient()},
	}
	for i := range vs {
		if own && vs[i].hc == nil {
			vs[i].hc = ownClient()
		}
	}
	for _, n := range []string{"reader (decode included)", "a second reader"} {
		r, err := chhttp.New(chhttp.Options{URL: base, Database: db})
		if err != nil {
			return nil, err
		}
		vs = append(vs, variant{name: n, reader: r})
	}
	return vs, nil
}

// ownClient is a client with a connection pool of its own.
func ownClient() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// run sends every statement on every variant, in a fresh random order each round, and returns
// the latencies per statement and variant of the rounds after warmup.
func run(ctx context.Context, base string, stmts []statement, vs []variant, settings clickhouse.Settings, rounds, warmup int) [][][]time.Duration {
	shared := ownClient()
	readerSettings := clickhouse.Settings{"log_queries": 1} // as the floor run's reader path
	for k, v := range settings {
		readerSettings[k] = v
	}
	lat := make([][][]time.Duration, len(stmts))
	for s := range lat {
		lat[s] = make([][]time.Duration, len(vs))
	}
	type job struct{ s, v int }
	var jobs []job
	for s := range stmts {
		for v := range vs {
			jobs = append(jobs, job{s, v})
		}
	}
	order := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 41))
	for round := range rounds + warmup {
		for _, k := range order.Perm(len(jobs)) {
			j := jobs[k]
			v, sql := vs[j.v], stmts[j.s].sql
			start := time.Now()
			var err error
			if v.reader != nil {
				err = readAll(ctx, v.reader, sql, readerSettings)
			} else {
				hc := shared
				if v.hc != nil {
					hc = v.hc
				}
				_, err = post(ctx, hc, base, v, sql)
			}
			if err != nil {
				log.Fatalf("%s, %s: %v", stmts[j.s].name, v.name, err)
			}
			if round >= warmup {
				lat[j.s][j.v] = append(lat[j.s][j.v], time.Since(start))
			}
		}
	}
	return lat
}

// readAll sends sql through the reader and decodes every row, as the engine's reads do.
func readAll(ctx context.Context, r *chhttp.Client, sql string, settings clickhouse.Settings) error {
	rows, err := r.Query(ctx, sql, settings)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return nil
}

func p50(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2]) / float64(time.Millisecond)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}
