package main

import (
	"context"
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
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/benchmarks/internal/chpost"
	"mtk/benchmarks/internal/figures"
	"mtk/benchmarks/internal/pgcost"
	"mtk/benchmarks/internal/profile"
	"mtk/engine"
	"mtk/internal/config"
	"mtk/internal/db"
)

// The floor run (-floor): one client, no other load from this process, the first project's
// tiles (the one whose ad facts a real sync wrote: minutes today, hours for the last days, days
// before) at the 30-day range and today (-queries names some tiles). Request by request, the
// paths in a random order each round, each tile is asked of mtk over HTTP (cache off) and its
// own statement is sent straight to ClickHouse, through its HTTP
// interface (the floor, issue 41) and through clickhouse-go with the engine's settings: its
// native protocol as mtk connects (LZ4), without compression, and its HTTP protocol (the driver's
// fixed cost), so that what else the shared machine does weighs on every path alike. It prints
// each tile's p50 on each path, its ratio to the floor's, and the statements mtk sent for one
// answer.

// floorTile is one tile and its requests on each path.
type floorTile struct {
	name       string
	req        request
	input      engine.QueryInput
	stmt       engine.Statement
	query      engine.Statement // its attempt's Query (with every missing-rate flag)
	settings   clickhouse.Settings
	statements int         // mtk's statements for one answer, once the project's currency hint is known
	lat        []cell      // per floorPath
	cost       []floorCost // per floorPath, measured rounds
	timing     mtkTiming   // mtk's Server-Timing, measured rounds
}

// floorPath is one way a tile is asked.
type floorPath struct {
	name string
	do   func(*floorTile) error
}

// The first two paths of every floor run: mtk, and the floor the others are compared with.
const (
	pathMTK   = 0
	pathFloor = 1
)

// pathReader is the path that sends mtk's statement through mtk's HTTP reader alone.
const pathReader = "HTTP reader, logged"

// runFloor measures the chosen tiles of the first project on every path, -floor-rounds times
// each.
func (d *dashboard) runFloor(ctx context.Context) error {
	var pg pgcost.Counter // the server's PostgreSQL round trips
	pool, err := pg.Traced(ctx, d.pg.Config())
	if err != nil {
		return err
	}
	defer pool.Close()
	srv, err := startServer(pool, d.serverCH, d.chURL, d.pgURL, serverOptions{cache: config.Off, clock: d.clk})
	if err != nil {
		return err
	}
	defer srv.close() //nolint:errcheck
	ts, err := d.floorTiles(ctx)
	if err != nil {
		return err
	}
	if err := writeFloorSQL(d.f.dash.floorSQL, ts); err != nil {
		return err
	}
	qc := newQueryClient(srv.url, d.t, d.pages, 1)
	floorHC, queryHC := ownConnection(), ownConnection()
	chHTTP := strings.TrimSuffix(d.f.dash.chHTTP, "/")
	paths := []floorPath{
		{"mtk", func(t *floorTile) error { return qc.timed(t.req, &t.timing) }},
		{"floor (HTTP)", func(t *floorTile) error { return sendHTTP(ctx, floorHC, chHTTP, d.f.dbName, t.stmt, t.settings) }},
		// Query with every missing-rate flag, which a lighter statement replaces where it answers
		// (Attempt.OneCurrency, Attempt.Lean): what they save on ClickHouse.
		{"Query (HTTP)", func(t *floorTile) error { return sendHTTP(ctx, queryHC, chHTTP, d.f.dbName, t.query, t.settings) }},
		{"native, lz4", func(t *floorTile) error { return sendNative(ctx, d.ch, t, t.settings) }},
		// The engine's settings travel with every statement on the native protocol (clickhouse-go
		// sends a connection's own settings with each statement too): what they cost.
		{"native, no settings", func(t *floorTile) error { return sendNative(ctx, d.ch, t, nil) }},
	}
	reader, err := floorReader(d.chURL, chHTTP)
	if err != nil {
		return err
	}
	sent := 0
	paths = append(paths,
		floorPath{"native, logged", func(t *floorTile) error { sent++; return sendLoggedNative(ctx, d.ch, t, sent) }},
		floorPath{pathReader, func(t *floorTile) error { return sendReader(ctx, reader, t) }})
	since := time.Now().Add(-time.Second)
	// The driver's variants: without compression, and clickhouse-go's HTTP protocol.
	for _, v := range []struct {
		name string
		set  func(*clickhouse.Options)
	}{
		{"native, none", func(o *clickhouse.Options) { o.Compression = nil }},
		{"clickhouse-go HTTP", func(o *clickhouse.Options) {
			*o = clickhouse.Options{Protocol: clickhouse.HTTP, Addr: []string{strings.TrimPrefix(chHTTP, "http://")}, Auth: o.Auth}
		}},
	} {
		conn, err := openVariant(ctx, d.chURL, v.set)
		if err != nil {
			log.Printf("floor: %s left out: %v", v.name, err)
			continue
		}
		defer conn.Close()
		paths = append(paths, floorPath{v.name, func(t *floorTile) error { return sendNative(ctx, conn, t, t.settings) }})
	}
	for _, t := range ts {
		t.lat, t.cost = make([]cell, len(paths)), make([]floorCost, len(paths))
	}
	readerPath := slices.IndexFunc(paths, func(p floorPath) bool { return p.name == pathReader })
	stopProfile, err := profile.Start(d.f.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	var pgBase int64
	log.Printf("floor: %d tiles × %d rounds on %d paths", len(ts), d.f.dash.floorRounds, len(paths))
	// Each round asks the paths in a fresh random order: in a fixed rotation each path always
	// follows the same one, and on 18.16 a statement right after a similar one measured up to a
	// third faster (issue 41: the full Query after the lean floor "beat" it by 0.64–0.91×,
	// and the lean one after Query beat that in turn).
	order := rand.New(rand.NewPCG(uint64(d.f.seed), 41))
	for round := range d.f.dash.floorRounds + d.f.warmup {
		if round == d.f.warmup {
			pgBase = pg.Trips()
			for _, t := range ts {
				t.timing = mtkTiming{}
			}
		}
		for _, t := range ts {
			for _, i := range order.Perm(len(paths)) {
				start, cpu := time.Now(), processCPU()
				err := paths[i].do(t)
				used := processCPU() - cpu
				if err != nil && round >= d.f.warmup {
					log.Printf("floor: %s, %s: %v", t.name, paths[i].name, err)
				}
				if round < d.f.warmup {
					continue
				}
				c := &t.lat[i]
				c.latencies = append(c.latencies, time.Since(start))
				t.cost[i].cpu += used
				t.cost[i].n++
				if err != nil {
					c.Errors++
					if c.FirstErr == "" {
						c.FirstErr = err.Error()
					}
				}
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if done := round + 1 - d.f.warmup; done > 0 && done%20 == 0 {
			log.Printf("floor: %d rounds", done)
		}
	}
	floorMarkdown(ts, paths, d.f.dash.floorRounds)
	costMarkdown(ts, paths, readerPath, &pg, pgBase)
	got, err := serverTimes(ctx, d.ch, ts, since)
	if err != nil {
		return err
	}
	serverMarkdown(ts, got)
	return recordFloor(ts)
}

// recordFloor records, for the summary of make bench, each tile's p50 over mtk ÷ its floor's
// and mtk's statements for one answer (floorMarkdown sorted the latencies).
func recordFloor(ts []*floorTile) error {
	got := map[string]float64{}
	for _, t := range ts {
		got["floor."+t.name+".ratio"] = t.lat[pathMTK].percentile(50) / t.lat[pathFloor].percentile(50)
		got["floor."+t.name+".statements"] = float64(t.statements)
	}
	return figures.Record(got)
}

// floorTiles are the first project's tiles (those of -queries) at the 30-day range, with their
// statements as the floor sends them (compileMix) and mtk's statement count for one answer:
// asked twice, counted the second time, once the service knows whether the project mixes
// currencies (the first money answer of a project that does takes two statements,
// engine.Attempt.OneCurrency). An answer with a warning (a fallback, a missing rate) is refused:
// the run must time the answers it means to.
func (d *dashboard) floorTiles(ctx context.Context) ([]*floorTile, error) {
	scope, err := scopeOf(ctx, d.store.Projects, d.t.projects[0])
	if err != nil {
		return nil, err
	}
	svc := engine.New(d.serverCH, engine.Options{Clock: d.clk})
	rng := slices.Index(rangeDays, 30)
	var ts []*floorTile
	var qs []query
	for i, tl := range tiles {
		if d.f.only != nil && !slices.Contains(d.f.only, tl.Name) {
			continue
		}
		t := &floorTile{name: tl.Name, req: request{project: 0, rng: rng, tile: i}, input: d.pages[0][rng].inputs[i]}
		for range 2 {
			var timing engine.Timing
			res, err := svc.Query(engine.WithTiming(ctx, &timing), scope, t.input)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", tl.Name, err)
			}
			if len(res.Warnings) > 0 || len(res.Data) == 0 {
				return nil, fmt.Errorf("%s: unexpected answer (rows %d, warnings %q)", tl.Name, len(res.Data), res.Warnings)
			}
			t.statements = timing.Statements()
		}
		ts = append(ts, t)
		qs = append(qs, query{Name: tl.Name, Input: t.input})
	}
	fp, err := compileMix(d.ch, svc, scope, qs, d.clk.Now())
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		t.stmt, t.query, t.settings = fp.stmts[i], fp.queries[i], fp.settings[i]
	}
	return ts, nil
}

// writeFloorSQL writes each tile's statement, its values bound as the floor sends it, to
// dir/<tile>.sql (nothing when dir is empty), to compare it with a hand-written one.
func writeFloorSQL(dir string, ts []*floorTile) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, t := range ts {
		sql, err := engine.Bind(t.stmt)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, t.name+".sql"), []byte(sql+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// openVariant opens the run's ClickHouse database with mtk's connection options as set changes
// them.
func openVariant(ctx context.Context, dsn string, set func(*clickhouse.Options)) (driver.Conn, error) {
	opts, err := db.ClickHouseOptions(dsn)
	if err != nil {
		return nil, err
	}
	set(opts)
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, err
	}
	if err := conn.Ping(ctx); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}

// floorMarkdown prints the floor run's table: p50 per tile and path, and each path's ratio to
// the floor.
func floorMarkdown(ts []*floorTile, paths []floorPath, rounds int) {
	fmt.Printf("\nfloor run: %d rounds, 1 client, load average %.2f; p50 ms (÷ floor)\n\n| tile | mtk statements |", rounds, loadAvg())
	for _, p := range paths {
		fmt.Printf(" %s |", p.name)
	}
	fmt.Printf(" errors |\n|---|--:|%s--:|\n", strings.Repeat("--:|", len(paths)))
	for _, t := range ts {
		fmt.Printf("| %s | %d |", t.name, t.statements)
		floor, errs := 0.0, 0
		for i := range paths {
			slices.Sort(t.lat[i].latencies)
			if i == pathFloor {
				floor = t.lat[i].percentile(50)
			}
		}
		for i := range paths {
			p50 := t.lat[i].percentile(50)
			fmt.Printf(" %.2f (%.2f) |", p50, p50/floor)
			errs += t.lat[i].Errors
		}
		fmt.Printf(" %d |\n", errs)
		for i, p := range paths {
			if t.lat[i].FirstErr != "" {
				fmt.Printf("  %s, first error: %s\n", p.name, t.lat[i].FirstErr)
			}
		}
	}
}

// ownConnection is an HTTP client with a connection pool of its own. Each HTTP path to
// ClickHouse gets one, as mtk's server and the reader path have theirs: on 18.16 a keep-alive
// connection that carries more of the run's statements answers them faster (the reader's very
// request measured 1.2–1.4× the p50, and its query_duration_ms as much more, on a connection of
// its own as on one that carried most statements: benchmarks/floorvariants, docs/benchmarks.md),
// and the floor used to share one with the Query path.
func ownConnection() *http.Client {
	return &http.Client{Timeout: queryTimeout, Transport: http.DefaultTransport.(*http.Transport).Clone()}
}

// sendHTTP sends a statement, its values bound as clickhouse-go binds them, to ClickHouse's
// HTTP interface with the engine's settings, and reads the whole answer.
func sendHTTP(ctx context.Context, hc *http.Client, base, db string, st engine.Statement, settings clickhouse.Settings) error {
	sql, err := engine.Bind(st)
	if err != nil {
		return err
	}
	q := url.Values{"database": {db}}
	for k, v := range settings {
		q.Set(k, fmt.Sprint(v))
	}
	body, err := chpost.Post(ctx, hc, base, q, nil, sql)
	if err != nil {
		return err
	}
	if len(body) == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}

// sendNative sends a tile's statement through a clickhouse-go connection with settings (the
// engine's, as the engine does, or none) and reads every row.
func sendNative(ctx context.Context, conn driver.Conn, t *floorTile, settings clickhouse.Settings) error {
	ctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	rows, err := conn.Query(clickhouse.Context(ctx, clickhouse.WithSettings(settings)), t.stmt.SQL, t.stmt.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}
