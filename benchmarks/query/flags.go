package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// flags are the benchmark's command line.
type flags struct {
	rows, days, warmup, maxRequests int
	rounds                          int
	seed                            int64
	duration                        time.Duration
	clients, rawClients             []int
	only                            []string
	out, dbName, cpuProfile         string
	fresh                           bool
	// hits measures answer cache hits instead of the cells (hits.go); hitsLog is where the
	// server's request log goes, hitsSyscalls counts its system calls over HTTP.
	hits         bool
	hitsLog      string
	hitsSyscalls bool
	// hitsRedis is a Redis URL: the HTTP load again with the rate limits kept there (hitsredis.go).
	hitsRedis string
	// dash holds the flags of the dashboard run (-dashboard).
	dash dashFlags
}

// dashFlags shape the dashboard run (dashboard.go).
type dashFlags struct {
	on                    bool
	projects, viewers     int
	parallel, verifyEvery int
	zipf                  float64
	run, warmup, think    time.Duration
	syncEvery             time.Duration
	events, orders        float64
	runs                  []string
	// floor makes the floor run instead of the runs (floorrun.go), over the dashboard's data.
	floor       bool
	floorRounds int
	chHTTP      string
	// floorSQL, when set, is a directory the floor run writes each tile's bound statement to.
	floorSQL string
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
	flag.BoolVar(&f.hits, "hits", false, "measure answer cache hits instead of the cells (own database "+hitsDB+"): server CPU per hit and hits per second at saturation, over -duration")
	flag.StringVar(&f.hitsLog, "hits-log", hitsLogBuffered, "hits: the server's request log, written to a temporary file: "+hitsLogBuffered+" (as mtk serve writes stdout: lines batched, internal/logbuf), "+hitsLogDirect+" (a write per line) or "+hitsLogDiscard+" (formatted, not written)")
	flag.BoolVar(&f.hitsSyscalls, "hits-syscalls", false, "hits: count the server's system calls per hit over HTTP with `perf stat` (its tracepoints cost the server CPU: compare CPU figures of runs without it)")
	flag.StringVar(&f.hitsRedis, "hits-redis", "", "hits: a Redis URL (redis://127.0.0.1:16379/0): also load a server whose rate limits are kept there (MTK_REDIS_URL), and print redis-server's CPU per hit (it must run on this machine)")
	d := &f.dash
	flag.BoolVar(&d.on, "dashboard", false, "run the dashboard benchmark instead of the cells (own database "+dashDB+", JSON "+dashOut+"): pages of queries by Zipf-chosen viewers over -projects projects, with live writes and syncs, cache on (day and project grain), off, and the floor")
	flag.IntVar(&d.projects, "projects", 50, "dashboard: projects sharing the -rows rows")
	flag.IntVar(&d.viewers, "viewers", 8, "dashboard: concurrent viewers (closed loop)")
	flag.IntVar(&d.parallel, "page-parallel", 6, "dashboard: a page's queries in flight at once (a browser's connections per host)")
	flag.Float64Var(&d.zipf, "zipf", 1.1, "dashboard: exponent of the Zipf law viewers choose projects by (above 1)")
	flag.DurationVar(&d.run, "run", 30*time.Second, "dashboard: measured time of each run")
	flag.DurationVar(&d.warmup, "run-warmup", 10*time.Second, "dashboard: unmeasured load before each run")
	flag.DurationVar(&d.think, "think", 0, "dashboard: a viewer's pause between pages")
	flag.DurationVar(&d.syncEvery, "sync-every", time.Minute, "dashboard: a sync of the synced connection every this long (the first one mid-run)")
	flag.Float64Var(&d.events, "events", 20, "dashboard: tracking events posted per second, over all projects")
	flag.Float64Var(&d.orders, "orders", 2, "dashboard: order webhooks posted per second, over all projects")
	flag.IntVar(&d.verifyEvery, "verify-every", 20, "dashboard: one cache hit in this many is read again with Cache-Control: no-cache and compared (0: none)")
	flag.BoolVar(&d.floor, "floor", false, "measure, over the dashboard's data (its database and flags), the first project's tiles at one client: mtk over HTTP against each tile's own statement sent straight to ClickHouse's HTTP interface (the floor) and through clickhouse-go, with mtk's statements per answer")
	flag.IntVar(&d.floorRounds, "floor-rounds", 200, "floor: requests per tile and path (after -warmup unmeasured ones)")
	flag.StringVar(&d.chHTTP, "ch-http", "http://127.0.0.1:18123", "floor: ClickHouse's HTTP interface")
	flag.StringVar(&d.floorSQL, "floor-sql", "", "floor: write each tile's statement, its values bound, to <tile>.sql in this directory")
	var runs string
	flag.StringVar(&runs, "runs", strings.Join(dashRunIDs, ","), "dashboard: the runs to make: day and project (cache on, versions per day or per project), off (cache off), off1 (cache off, one client, one tile at a time), floor1 and floor (the statements straight to ClickHouse)")
	flag.Parse()
	d.runs = strings.Split(runs, ",")
	d.on = d.on || d.floor
	if f.hits && !flagSet("db") {
		f.dbName = hitsDB
	}
	if d.on {
		// The dashboard run has its own database, output and days unless they are given.
		if !flagSet("db") {
			f.dbName = dashDB
		}
		if !flagSet("out") {
			f.out = dashOut
		}
		if !flagSet("days") {
			f.days = dashDays
		}
	}
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
	if d.on {
		if d.floor && d.floorRounds < 1 {
			return f, errors.New("-floor-rounds: at least 1")
		}
		return f, d.check(f.days)
	}
	return f, checkDates(f.days)
}

// flagSet reports whether the command line gave the flag.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(fl *flag.Flag) { set = set || fl.Name == name })
	return set
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
