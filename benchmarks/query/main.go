// Command query is the query benchmark of the engine (make bench): it fills its own databases
// with N generated raw ad facts, serves the API in this process on a loopback port with rate
// limits off, and measures a fixed dashboard mix over HTTP at several concurrencies, next to
// the same compiled SQL sent straight to ClickHouse (the floor) and the same queries planned on
// facts_raw (what the rollups save). It prints a markdown table and writes JSON.
//
// With -dashboard it runs the dashboard benchmark instead (dashboard.go): viewers loading pages
// of queries over 50 projects while events, orders and syncs keep arriving, with the answer
// cache on, off, and the floor.
//
//	go run ./benchmarks/query -rows 10000000 -out benchmarks/results/query.json
//	go run ./benchmarks/query -dashboard
//	go run ./benchmarks/query -hits
//
// With -hits it measures what an answer cache hit costs the server (hits.go).
//
// benchmarks/README.md explains the figures.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/benchmarks/internal/dashmix"
	"mtk/benchmarks/internal/profile"
	"mtk/engine"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/platform"
)

func main() {
	log.SetFlags(log.Ltime)
	if addr := os.Getenv(hitsLoadEnv); addr != "" { // the -hits run's child: its load over HTTP
		hitsLoad(addr)
		return
	}
	f, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	do := run
	switch {
	case f.dash.on:
		do = runDashboard
	case f.hits:
		do = runHits
	}
	if err := do(ctx, f); err != nil {
		log.Fatal(err)
	}
}

// run sets up the databases, the data and the server, warms up, measures and reports.
func run(ctx context.Context, f flags) error {
	began := time.Now()
	st, err := openBenchStores(ctx, f)
	if err != nil {
		return err
	}
	defer st.close()
	pg, ch, t := st.pg, st.ch, st.t
	data, err := ensureData(ctx, ch, f.dbName, dataSpec{Seed: f.seed, Rows: f.rows, Days: f.days}, t, f.fresh)
	if err != nil {
		return err
	}
	// The server gets its own ClickHouse pool, as `mtk serve` has; the floor uses ch.
	serverCH, err := db.OpenClickHouse(ctx, st.chURL)
	if err != nil {
		return err
	}
	defer serverCH.Close()
	// The service as `mtk serve` makes it: its settings also go with the floor's statements.
	svc := engine.New(serverCH, engine.Options{Clock: clock.Real{}}) // the direct paths' engine
	// The cells measure the engine's path: the answer cache would answer every request after
	// the first from memory (the dashboard run, -dashboard, measures it).
	srv, err := startServer(pg, serverCH, st.chURL, st.pgURL, serverOptions{cache: config.Off})
	if err != nil {
		return err
	}
	defer srv.close() //nolint:errcheck

	mix := dashmix.Mix(t.project.ID, dataStart.AddDate(0, 0, f.days-1))
	p, err := newPaths(srv, ch, svc, t, mix, slices.Max(f.clients))
	if err != nil {
		return err
	}
	rep := report{
		Command: strings.Join(append([]string{"go run ./benchmarks/query"}, os.Args[1:]...), " "), Started: began.UTC().Format(time.RFC3339), LoadStart: loadAvg(),
		Machine: machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version()},
		Settings: runSettings{Rows: f.rows, Days: f.days, Seed: f.seed, DurationS: f.duration.Seconds(),
			MaxRequests: f.maxRequests, Rounds: f.rounds, Clients: f.clients, RawClients: f.rawClients, Warmup: f.warmup},
		Data: data,
	}
	if err := ch.QueryRow(ctx, "SELECT version()").Scan(&rep.Machine.ClickHouse); err != nil {
		return err
	}
	if rep.Queries, err = warmUp(ctx, f.warmup, mix, p); err != nil {
		return err
	}
	if f.cpuProfile != "" {
		stopProfile, err := profile.Start(f.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}
	if rep.Results, err = measure(ctx, f, workloads(mix), p); err != nil {
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

// newPaths prepares the three paths of the mix: HTTP with the tenant's key, the compiled
// statements on ch, and the same queries planned on facts_raw.
func newPaths(srv *server, ch driver.Conn, svc *engine.Service, t tenant, mix []query, clients int) (paths, error) {
	scope := engine.Scope{ProjectID: t.project.ID, Currency: t.project.Currency, TimeZone: t.project.Timezone,
		SubHour: platform.SubHourGranularities(t.workspace.Tier)}
	for _, c := range t.connections {
		scope.ConnectionIDs = append(scope.ConnectionIDs, c.ID)
	}
	var p paths
	var err error
	if p.http, err = newHTTPPath(srv, t.key.Token, mix, clients); err != nil {
		return p, err
	}
	if p.floor, err = compileMix(ch, svc, scope, mix, time.Now()); err != nil {
		return p, err
	}
	p.raw, err = compileMix(ch, svc, scope, mix, time.Now(), engine.ForceRaw())
	return p, err
}

// warmUp checks each query's answer over HTTP, then sends it warmup times on each path. It
// returns what the report says of the queries.
func warmUp(ctx context.Context, warmup int, mix []query, p paths) ([]queryReport, error) {
	log.Printf("warming up: %d requests per query on each path", warmup)
	var out []queryReport
	for i, q := range mix {
		rows, err := p.http.check(ctx, i)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", q.Name, err)
		}
		body, err := json.Marshal(q.Input)
		if err != nil {
			return nil, err
		}
		out = append(out, queryReport{Name: q.Name, About: q.About, Body: string(body), Table: p.floor.tables[i],
			Rows: rows, SQL: p.floor.stmts[i].SQL, RawTable: p.raw.tables[i]})
		for range warmup {
			for _, send := range []sender{p.http.send, p.floor.send, p.raw.send} {
				if err := send(ctx, i); err != nil {
					return nil, fmt.Errorf("warm-up %s: %w", q.Name, err)
				}
			}
		}
	}
	return out, nil
}
