package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"mtk/engine"
	"mtk/internal/config"
)

// The floor run (-floor): one client, no other load from this process, the first project's
// tiles (the one whose ad facts a real sync wrote: minutes today, hours for the last days, days
// before) at the 30-day range and today. Request by request in turn, each tile is asked of mtk
// over HTTP (cache off) and its own statement is sent straight to ClickHouse, through its HTTP
// interface (the floor, issue 41) and through clickhouse-go's native protocol with the engine's
// settings (the driver's fixed cost), so that what else the shared machine does weighs on the
// three alike. It prints each tile's p50 on each path, the ratio of mtk's to the floor's, and
// the statements mtk sent for one answer.

// floorTile is one tile's requests on the three paths.
type floorTile struct {
	name                 string
	req                  request
	input                engine.QueryInput
	stmt                 engine.Statement
	settings             clickhouse.Settings
	statements           int // mtk's statements for one answer
	mtk, native, httpLat cell
}

// runFloor measures the first project's tiles on the three paths, -floor-rounds times each.
func (d *dashboard) runFloor(ctx context.Context) error {
	if err := d.compileFloor(ctx); err != nil {
		return err
	}
	srv, err := startServer(d.pg, d.serverCH, d.chURL, d.pgURL, serverOptions{cache: config.Off, clock: d.clk})
	if err != nil {
		return err
	}
	defer srv.close() //nolint:errcheck
	qc := newQueryClient(srv.url, d.t, d.pages, 1)
	scope, err := scopeOf(ctx, d.store.Projects, d.t.projects[0])
	if err != nil {
		return err
	}
	svc := engine.New(d.serverCH, engine.Options{Clock: d.clk})
	rng := slices.Index(rangeDays, 30)
	var ts []*floorTile
	for i, tl := range tiles {
		r := request{project: 0, rng: rng, tile: i}
		fp := d.floorPaths[0][rng]
		ft := &floorTile{name: tl.Name, req: r, input: d.pages[0][rng].inputs[i], stmt: fp.stmts[i], settings: fp.settings[i]}
		var timing engine.Timing
		if _, err := svc.Query(engine.WithTiming(ctx, &timing), scope, ft.input); err != nil {
			return fmt.Errorf("%s: %w", tl.Name, err)
		}
		ft.statements = timing.Statements()
		ts = append(ts, ft)
	}
	hc := &http.Client{Timeout: queryTimeout}
	chHTTP := strings.TrimSuffix(d.f.dash.chHTTP, "/")
	paths := []struct {
		lat func(*floorTile) *cell
		do  func(*floorTile) error
	}{
		{func(t *floorTile) *cell { return &t.mtk }, func(t *floorTile) error { _, err := qc.check(t.req, false); return err }},
		{func(t *floorTile) *cell { return &t.httpLat }, func(t *floorTile) error { return sendHTTP(ctx, hc, chHTTP, d.f.dbName, t) }},
		{func(t *floorTile) *cell { return &t.native }, func(t *floorTile) error { return d.sendNative(ctx, t) }},
	}
	log.Printf("floor: %d tiles × %d rounds on mtk over HTTP, ClickHouse's HTTP interface and clickhouse-go native", len(ts), d.f.dash.floorRounds)
	for round := range d.f.dash.floorRounds + d.f.warmup {
		for _, t := range ts {
			for k := range paths {
				p := paths[(k+round)%len(paths)] // each path first in turn
				start := time.Now()
				err := p.do(t)
				if round < d.f.warmup {
					continue
				}
				c := p.lat(t)
				c.latencies = append(c.latencies, time.Since(start))
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
	}
	floorMarkdown(ts, d.f.dash.floorRounds)
	return nil
}

// floorMarkdown prints the floor run's table.
func floorMarkdown(ts []*floorTile, rounds int) {
	fmt.Printf("\nfloor run: %d rounds, 1 client, load average %.2f\n\n", rounds, loadAvg())
	fmt.Println("| tile | mtk statements | mtk p50 ms | floor (HTTP) p50 ms | native p50 ms | mtk ÷ floor | native ÷ floor | errors |")
	fmt.Println("|---|--:|--:|--:|--:|--:|--:|--:|")
	for _, t := range ts {
		for _, c := range []*cell{&t.mtk, &t.httpLat, &t.native} {
			slices.Sort(c.latencies)
		}
		m, f, n := t.mtk.percentile(50), t.httpLat.percentile(50), t.native.percentile(50)
		fmt.Printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %d |\n", t.name, t.statements, m, f, n, m/f, n/f,
			t.mtk.Errors+t.httpLat.Errors+t.native.Errors)
		for _, c := range []*cell{&t.mtk, &t.httpLat, &t.native} {
			if c.FirstErr != "" {
				fmt.Printf("  first error: %s\n", c.FirstErr)
			}
		}
	}
}

// sendHTTP sends a tile's statement, its values bound as clickhouse-go binds them, to
// ClickHouse's HTTP interface with the engine's settings, and reads the whole answer.
func sendHTTP(ctx context.Context, hc *http.Client, base, db string, t *floorTile) error {
	sql, err := engine.Bind(t.stmt)
	if err != nil {
		return err
	}
	q := url.Values{"database": {db}}
	for k, v := range t.settings {
		q.Set(k, fmt.Sprint(v))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/?"+q.Encode(), strings.NewReader(sql))
	if err != nil {
		return err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode, body)
	}
	if len(body) == 0 {
		return fmt.Errorf("no rows")
	}
	return nil
}

// sendNative sends a tile's statement through clickhouse-go's native protocol, as the engine
// does, and reads every row.
func (d *dashboard) sendNative(ctx context.Context, t *floorTile) error {
	rows, err := d.ch.Query(clickhouse.Context(ctx, clickhouse.WithSettings(t.settings)), t.stmt.SQL, t.stmt.Args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
	}
	return rows.Err()
}
