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
