package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/benchmarks/internal/profile"
	"mtk/engine"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/wire"
	"mtk/platform"
)

// The dashboard run (-dashboard): viewers load dashboard pages (pages.go, viewers.go) of
// -projects projects while events and orders arrive and a sync lands every minute (writes.go,
// syncs.go), against servers with the answer cache on (per-day versions, then per-project
// versions), off, and the floor under them; benchmarks/README.md explains the figures.

// Database and output of the dashboard run, unless -db and -out say otherwise.
const (
	dashDB  = "mtk_bench_query_dashboard"
	dashOut = "benchmarks/results/dashboard.json"
)

// The runs, in the order they are made.
const (
	runCacheDay     = "cache on (day)"
	runCacheProject = "cache on (project)"
	runCacheOff     = "cache off"
	runCacheOff1    = "cache off, 1 client"
	runFloor1       = "floor, 1 client"
	runFloor        = "floor"
)

// dashRunIDs name the runs for -runs.
var dashRunIDs = []string{"day", "project", "off", "off1", "floor1", "floor"}

// dashRun is one run: a server configuration (the floor's server only takes the writes) and
// the viewers' concurrency.
type dashRun struct {
	id, name          string
	cache             config.Toggle
	grain             string
	floor             bool
	viewers, parallel int
}

// check validates the dashboard's flags.
func (d dashFlags) check(days int) error {
	switch {
	case d.projects < 1 || d.projects > 1000:
		return errors.New("-projects: 1 to 1000")
	case d.viewers < 1 || d.viewers > 256:
		return errors.New("-viewers: 1 to 256")
	case d.parallel < 1 || d.parallel > len(tiles):
		return fmt.Errorf("-page-parallel: 1 to %d (the tiles of a page)", len(tiles))
	case d.zipf <= 1:
		return errors.New("-zipf: above 1")
	case d.run <= 0 || d.warmup < 0:
		return errors.New("-run: positive; -run-warmup: not negative")
	case d.syncEvery <= 0:
		return errors.New("-sync-every: positive")
	case d.events < 0 || d.orders < 0:
		return errors.New("-events, -orders: not negative")
	case d.verifyEvery < 0:
		return errors.New("-verify-every: 0 (none) or more")
	case len(d.runs) == 0 || slices.ContainsFunc(d.runs, func(id string) bool { return !slices.Contains(dashRunIDs, id) }):
		return fmt.Errorf("-runs %q: a comma-separated list of %s", strings.Join(d.runs, ","), strings.Join(dashRunIDs, ", "))
	case days < 2*rangeDays[len(rangeDays)-1]+1:
		return fmt.Errorf("-days %d: a page reads the last %d days and the %[2]d before them, and today: generate at least %d",
			days, rangeDays[len(rangeDays)-1], 2*rangeDays[len(rangeDays)-1]+1)
	}
	return nil
}

// dashboard is what the runs share.
type dashboard struct {
	f          flags
	clk        shiftedClock
	pg         *pgxpool.Pool
	ch         driver.Conn // the floor's and the benchmark's own
	serverCH   driver.Conn // the servers'
	chURL      string
	pgURL      string
	store      *platform.Services
	t          *dashTenants
	pages      pageSet
	syncedID   string
	floorPaths [][]*directPath // [project][range], compiled when a floor run comes
}

// runDashboard sets up the tenants, the data, the simulator and the synced connection, checks
// every tile's answer, makes the runs and reports.
func runDashboard(ctx context.Context, f flags) error {
	began := time.Now()
	env := config.FromEnv()
	d := &dashboard{f: f, clk: newShiftedClock(dashStart)}
	spec := dataSpec{Seed: f.seed, Rows: f.rows, Days: f.days}
	var err error
	if d.pgURL, err = withDatabase(env.PostgresURL, f.dbName); err != nil {
		return err
	}
	ch, chURL, err := openClickHouse(ctx, env.ClickHouseURL, f.dbName)
	if err != nil {
		return err
	}
	defer ch.Close()
	d.ch, d.chURL = ch, chURL
	defer d.close()
	data, err := d.ensureData(ctx, env.PostgresURL, spec)
	if err != nil {
		return err
	}
	if err := loadAds(ctx, d.pg, d.t); err != nil {
		return err
	}
	if d.serverCH, err = db.OpenClickHouse(ctx, chURL); err != nil {
		return err
	}
	defer d.serverCH.Close()
	sim, err := startSim(d.clk, f.seed)
	if err != nil {
		return err
	}
	defer sim.close()
	synced, err := ensureSynced(ctx, d.store.Connections, wire.NewSyncer(d.store, d.serverCH, "", d.clk), sim, d.t.projects[0])
	if err != nil {
		return fmt.Errorf("the synced connection: %w", err)
	}
	d.syncedID = synced.ID
	if d.pages, err = buildPages(d.t, dashLast); err != nil {
		return err
	}
	rep := dashReport{
		Command: strings.Join(append([]string{"go run ./benchmarks/query"}, os.Args[1:]...), " "), Started: began.UTC().Format(time.RFC3339),
		LoadStart: loadAvg(), Machine: machine{CPUs: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), Go: runtime.Version()},
		Settings: dashSettings{Rows: f.rows, Days: f.days, Seed: f.seed, Projects: f.dash.projects, Workspaces: min(dashWorkspaces, f.dash.projects),
			Viewers: f.dash.viewers, Parallel: f.dash.parallel, Zipf: f.dash.zipf, Ranges: rangeDays, ThinkS: f.dash.think.Seconds(),
			RunS: f.dash.run.Seconds(), WarmupS: f.dash.warmup.Seconds(), EventsPerS: f.dash.events, OrdersPerS: f.dash.orders,
			SyncEveryS: f.dash.syncEvery.Seconds(), VerifyEvery: f.dash.verifyEvery},
		Data: data, Synced: fmt.Sprintf("%s (%s of %s)", synced.ID, *synced.SourceID, d.t.projects[0].project.Name),
		Clock: clockReport{Start: d.clk.Now().Format(time.RFC3339), Today: dashLast.Format(time.DateOnly)},
	}
	if err := ch.QueryRow(ctx, "SELECT version()").Scan(&rep.Machine.ClickHouse); err != nil {
		return err
	}
	if f.dash.floor {
		return d.runFloor(ctx)
	}
	if rep.Tiles, err = d.checkTiles(ctx); err != nil {
		return err
	}
	stopProfile, err := profile.Start(f.cpuProfile)
	if err != nil {
		return err
	}
	v, p := f.dash.viewers, f.dash.parallel
	// The uncached path and the floor at one client are measured together, page by page (see
	// measure), when both are asked for: their difference is the overhead target.
	floor1 := dashRun{id: "floor1", name: runFloor1, cache: config.Off, floor: true, viewers: 1, parallel: 1}
	paired := slices.Contains(f.dash.runs, "off1") && slices.Contains(f.dash.runs, "floor1")
	for _, run := range []dashRun{
		{id: "day", name: runCacheDay, cache: config.On, grain: "day", viewers: v, parallel: p},
		{id: "project", name: runCacheProject, cache: config.On, grain: "project", viewers: v, parallel: p},
		{id: "off", name: runCacheOff, cache: config.Off, viewers: v, parallel: p},
		{id: "off1", name: runCacheOff1, cache: config.Off, viewers: 1, parallel: 1},
		floor1,
		{id: "floor", name: runFloor, cache: config.Off, floor: true, viewers: v, parallel: p},
	} {
		if ctx.Err() != nil {
			break
		}
		if !slices.Contains(f.dash.runs, run.id) || run.id == "floor1" && paired {
			continue
		}
		runs := []dashRun{run}
		if run.id == "off1" && paired {
			runs = append(runs, floor1)
		}
		rs, err := d.measure(ctx, runs...)
		if err != nil {
			stopProfile()
			return fmt.Errorf("%s: %w", run.name, err)
		}
		for _, r := range rs {
			log.Printf("%-20s %d×%d: %.0f req/s, p50 %.2f p99 %.2f ms, hit ratio %.3f, %d errors", r.Name, r.Viewers, r.Parallel,
				r.RPS, r.P50, r.P99, r.HitRatio, r.Errors)
		}
		rep.Runs = append(rep.Runs, rs...)
	}
	stopProfile()
	if d.floorPaths != nil { // the statements of Store 01's tiles, as the floor sent them
		for i := range rep.Tiles {
			rng := slices.Index(rangeDays, 30)
			if tiles[i].today {
				rng = 0
			}
			fp := d.floorPaths[0][rng]
			rep.Tiles[i].Table, rep.Tiles[i].SQL = fp.tables[i], fp.stmts[i].SQL
		}
	}
	rep.Targets = dashTargets(rep.Runs)
	rep.LoadEnd = loadAvg()
	rep.Clock.End = d.clk.Now().Format(time.RFC3339)
	for _, p := range d.t.projects {
		if loc, err := time.LoadLocation(p.project.Timezone); err == nil && d.clk.Now().In(loc).Format(time.DateOnly) != rep.Clock.Today {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the run ended past midnight in %s: its last tiles read another today", p.project.Timezone))
			break
		}
	}
	rep.Seconds = round(time.Since(began).Seconds(), 1)
	dashMarkdown(os.Stdout, rep)
	if err := writeJSON(f.out, rep); err != nil {
		return err
	}
	log.Printf("wrote %s", f.out)
	return ctx.Err()
}

// ensureData finds or makes the tenants and reuses the data written for them, or, when it does
// not match (or with -fresh), makes the PostgreSQL database afresh (what it says of ClickHouse,
// such as sync snapshots, ad objects and versions, starts from nothing too; the tenants get new
// ids) and writes the data again.
func (d *dashboard) ensureData(ctx context.Context, pgServerURL string, spec dataSpec) (dataState, error) {
	if err := d.openTenants(ctx, pgServerURL); err != nil {
		return dataState{}, err
	}
	if !d.f.fresh {
		data, reuse, err := reuseDashData(ctx, d.ch, d.f.dbName, spec, d.t)
		if err != nil || reuse {
			return data, err
		}
	}
	d.close()
	if err := dropPostgres(ctx, pgServerURL, d.f.dbName); err != nil {
		return dataState{}, err
	}
	if err := d.openTenants(ctx, pgServerURL); err != nil {
		return dataState{}, err
	}
	return writeDashData(ctx, d.ch, d.pg, d.f.dbName, spec, d.t)
}

// openTenants opens the PostgreSQL database (made and migrated when missing) and finds or makes
// the tenants.
func (d *dashboard) openTenants(ctx context.Context, serverURL string) error {
	var err error
	if d.pg, err = openPostgres(ctx, serverURL, d.f.dbName); err != nil {
		return err
	}
	d.store = platform.New(d.pg, d.clk)
	d.t, err = ensureDashTenants(ctx, d.store, d.f.dash.projects)
	return err
}

// close revokes the run's keys and closes PostgreSQL.
func (d *dashboard) close() {
	if d.pg == nil {
		return
	}
	if d.t != nil {
		d.t.revoke(context.Background(), d.store.Keys)
	}
	d.pg.Close()
	d.pg, d.t = nil, nil
}

// checkTiles asks every distinct tile of every project once, from a server without the cache,
// and refuses an answer without rows or with a warning (a fallback to another table, a missing
// rate): the runs must time the answers they mean to. It returns the tiles as project 0 sees
// them over 30 days.
func (d *dashboard) checkTiles(ctx context.Context) ([]tileReport, error) {
	srv, err := startServer(d.pg, d.serverCH, d.chURL, d.pgURL, serverOptions{cache: config.Off, clock: d.clk})
	if err != nil {
		return nil, err
	}
	defer srv.close() //nolint:errcheck
	qc := newQueryClient(srv.url, d.t, d.pages, 4)
	log.Printf("checking the %d tiles of %d projects × %d ranges", len(tiles), len(d.t.projects), len(rangeDays))
	out := make([]tileReport, len(tiles))
	var mu sync.Mutex
	err = forEach(ctx, 4, distinctTiles(d.pages), func(r request) error {
		body, err := qc.check(r, false)
		if err != nil {
			return fmt.Errorf("project %d, %d days: %w", r.project, rangeDays[r.rng], err)
		}
		var a answer
		if err := json.Unmarshal(body, &a); err != nil {
			return err
		}
		tl := tiles[r.tile]
		if !a.Success || len(a.Data) == 0 || len(a.Warnings) > 0 {
			return fmt.Errorf("project %d, %d days, %s: unexpected answer (rows %d, warnings %q)", r.project, rangeDays[r.rng], tl.Name, len(a.Data), a.Warnings)
		}
		if r.project == 0 && (tl.today || rangeDays[r.rng] == 30) {
			mu.Lock()
			out[r.tile] = tileReport{Name: tl.Name, About: tl.About, Body: string(d.pages[0][r.rng].bodies[r.tile]), Rows: len(a.Data)}
			mu.Unlock()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// compileFloor compiles every page's tiles as the service does (compileMix), at the run's now.
func (d *dashboard) compileFloor(ctx context.Context) error {
	if d.floorPaths != nil {
		return nil
	}
	log.Printf("compiling the floor's statements")
	svc := engine.New(d.serverCH, engine.Options{Clock: d.clk})
	for pi, p := range d.t.projects {
		scope, err := scopeOf(ctx, d.store.Projects, p)
		if err != nil {
			return err
		}
		var paths []*directPath
		for ri := range rangeDays {
			var qs []query
			for ti, tl := range tiles {
				qs = append(qs, query{Name: tl.Name, About: tl.About, Input: d.pages[pi][ri].inputs[ti]})
			}
			dp, err := compileMix(d.ch, svc, scope, qs, d.clk.Now())
			if err != nil {
				return fmt.Errorf("project %d: %w", pi, err)
			}
			paths = append(paths, dp)
		}
		d.floorPaths = append(d.floorPaths, paths)
	}
	return nil
}

// floorDo is the floor's doer: a tile's compiled statements straight to ClickHouse.
func (d *dashboard) floorDo(ctx context.Context, r request, _ bool) outcome {
	return outcome{err: d.floorPaths[r.project][r.rng].send(ctx, r.tile)}
}
