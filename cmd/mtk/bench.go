package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"mtk/client"
	"mtk/internal/loadgen"
)

// benchFlags is what `mtk bench` was asked.
type benchFlags struct {
	url, key, queriesDir, cache, compare string
	bodies                               listFlag
	concurrency                          []int
	rates                                []float64
	maxInflight                          int
	duration, warmup                     time.Duration
	asJSON                               bool
	earlier                              *loadgen.Report // read from --compare
}

// listFlag is a flag given any number of times.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runBench benchmarks query bodies against a server (loadgen): it sends each body once, so that a
// refused key or body stops it before any load, then runs each cell and prints its figures.
func runBench(ctx context.Context, args []string, out io.Writer) error {
	f, err := parseBenchFlags(args)
	if err != nil {
		return err
	}
	queries, err := readQueries(f.bodies, f.queriesDir)
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		Proxy: http.ProxyFromEnvironment, MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second}}
	defer hc.CloseIdleConnections() // a server shutting down waits for open connections
	c := client.New(f.url, client.WithAPIKey(f.key), client.WithMaxRetries(0), client.WithHTTPClient(hc),
		client.WithUserAgent("mtk-bench/"+client.Version))
	if err := preflight(ctx, c, f.url, queries); err != nil {
		if ctx.Err() != nil {
			return benchStopped{}
		}
		return err
	}
	report := loadgen.Report{URL: f.url}
	var failed []string // the cells whose figures are not the load asked for, and why
	for _, cache := range cacheSettings(f.cache) {
		t := &loadgen.Target{Client: c, Queries: queries, NoCache: cache == "off"}
		for _, n := range f.concurrency {
			opt := f.options(fmt.Sprintf("concurrency %d, cache %s", n, cache))
			cell := loadgen.NewCell(loadgen.ModeConcurrency, float64(n), cache, queries, loadgen.Closed(ctx, t, n, opt))
			endProgress(opt)
			if ctx.Err() != nil { // the cell was cut short: its figures are not shown
				return stopBench(out, f, report)
			}
			report.Cells = append(report.Cells, cell)
			failed = append(failed, refusedCell(cell)...)
		}
		for _, rate := range f.rates {
			opt := f.options(fmt.Sprintf("rate %g, cache %s", rate, cache))
			cell := loadgen.NewCell(loadgen.ModeRate, rate, cache, queries, loadgen.Open(ctx, t, rate, f.maxInflight, opt))
			endProgress(opt)
			if ctx.Err() != nil {
				return stopBench(out, f, report)
			}
			report.Cells = append(report.Cells, cell)
			failed = append(failed, refusedCell(cell)...)
			if cell.Achieved < minShare*rate {
				failed = append(failed, fmt.Sprintf("%s: could not send at %g req/s, sent at %.1f req/s; %d requests waited for one of the %d slots of --max-inflight, the longest %.0f ms past its start (latencies count from the scheduled starts)",
					cell.Key(), rate, cell.Achieved, cell.Queued, f.maxInflight, cell.MaxLag))
			}
		}
	}
	if err := printBench(out, f, report); err != nil {
		return err
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "\n"))
	}
	return nil
}

// stopBench ends a run that a signal stopped: the finished cells' figures, then benchStopped.
func stopBench(out io.Writer, f benchFlags, report loadgen.Report) error {
	if len(report.Cells) > 0 {
		if err := printBench(out, f, report); err != nil {
			return err
		}
	}
	return benchStopped{cells: len(report.Cells)}
}

// refusedCell says why, when every request of the cell was refused (a rate limit, a server
// failing): its figures then measure nothing.
func refusedCell(cell loadgen.Cell) []string {
	if cell.Mix.Requests == 0 || cell.Mix.Answers > 0 {
		return nil
	}
	var why []string
	for _, code := range slices.Sorted(maps.Keys(cell.Mix.Errors)) {
		why = append(why, fmt.Sprintf("%d × %s", cell.Mix.Errors[code], code))
	}
	hint := ""
	if cell.Mix.Errors["429 "+client.CodeRateLimitExceeded] > 0 {
		hint = "; the key's rate limit is spent: wait for its window, or run the server with MTK_RATE_LIMITS=off"
	}
	return []string{fmt.Sprintf("%s: every one of its %d requests was refused (%s)%s",
		cell.Key(), cell.Mix.Requests, strings.Join(why, ", "), hint)}
}

// minShare is the share of the asked rate that the open model must send at: below it, the
// figures are not those of the rate asked.
const minShare = 0.98

// options are a cell's loadgen.Options, with a progress line on a terminal.
func (f benchFlags) options(cell string) loadgen.Options {
	opt := loadgen.Options{Warmup: f.warmup, Duration: f.duration}
	if isTerminal(os.Stderr) {
		opt.Progress = func(p loadgen.Progress) {
			fmt.Fprintf(os.Stderr, "\r\033[K%s: %s of %s, %d requests, %d errors", cell, p.Elapsed.Round(time.Second), p.Total, p.Requests, p.Errors)
		}
	}
	return opt
}

// endProgress clears the progress line of a cell.
func endProgress(opt loadgen.Options) {
	if opt.Progress != nil {
		fmt.Fprint(os.Stderr, "\r\033[K")
	}
}

func parseBenchFlags(args []string) (benchFlags, error) {
	var f benchFlags
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&f.url, "url", "http://127.0.0.1:8080", "the server's base URL")
	fs.StringVar(&f.key, "key", "", "API key with data:read (default $MTK_API_KEY)")
	fs.Var(&f.bodies, "body", "a file holding a query body (POST /v3/query); repeatable")
	fs.StringVar(&f.queriesDir, "queries", "", "a directory whose *.json files are query bodies")
	concurrency := fs.String("concurrency", "", "closed loop: callers sending their next query when the last is answered, one cell per value: 1,8,32 (default 1 without --rate)")
	rates := fs.String("rate", "", "open model: requests started per second on schedule whatever the answers, one cell per value: 50,200")
	fs.IntVar(&f.maxInflight, "max-inflight", 512, "open model: most requests in flight; one due when all are taken waits, and the rate falls short")
	fs.DurationVar(&f.duration, "duration", 10*time.Second, "counted time of each cell")
	fs.DurationVar(&f.warmup, "warmup", 2*time.Second, "time sent first in each cell and not counted")
	fs.StringVar(&f.cache, "cache", "on", "on, off (every query sent with Cache-Control: no-cache) or both (each cell twice)")
	fs.BoolVar(&f.asJSON, "json", false, "print the figures as JSON (for --compare)")
	fs.StringVar(&f.compare, "compare", "", "an earlier run's --json output: print each figure's ratio to it (not with --json)")
	positional, err := parseFlags(fs, args)
	if err != nil {
		return f, err
	}
	if len(positional) > 0 {
		return f, usageError{fmt.Sprintf("unexpected argument %q", positional[0])}
	}
	if f.key == "" {
		f.key = os.Getenv("MTK_API_KEY")
	}
	switch {
	case f.key == "":
		return f, usageError{"--key or MTK_API_KEY is required"}
	case len(f.bodies) == 0 && f.queriesDir == "":
		return f, usageError{"--body FILE or --queries DIR is required"}
	case f.cache != "on" && f.cache != "off" && f.cache != "both":
		return f, usageError{"--cache is on, off or both"}
	case f.duration <= 0 || f.warmup < 0:
		return f, usageError{"--duration must be positive and --warmup not negative"}
	case f.compare != "" && f.asJSON:
		return f, usageError{"--compare prints a table: not with --json"}
	}
	if f.compare != "" {
		if f.earlier, err = readReport(f.compare); err != nil {
			return f, err
		}
	}
	if *concurrency == "" && *rates == "" {
		*concurrency = "1"
	}
	for _, v := range splitList(*concurrency) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return f, usageError{fmt.Sprintf("--concurrency: %q is not a positive whole number", v)}
		}
		if n > maxBenchClients {
			return f, usageError{fmt.Sprintf("--concurrency: %d is over the most, %d", n, maxBenchClients)}
		}
		f.concurrency = append(f.concurrency, n)
	}
	for _, v := range splitList(*rates) {
		r, err := strconv.ParseFloat(v, 64)
		if err != nil || r <= 0 || math.IsInf(r, 0) {
			return f, usageError{fmt.Sprintf("--rate: %q is not a positive number", v)}
		}
		if r > maxBenchRate {
			return f, usageError{fmt.Sprintf("--rate: %g is over the most, %d a second", r, maxBenchRate)}
		}
		f.rates = append(f.rates, r)
	}
	if f.maxInflight < 1 {
		return f, usageError{"--max-inflight must be at least 1"}
	}
	return f, nil
}

// readQueries reads the bodies of files and of dir's *.json files, in that order, each named
// for its file.
func readQueries(files []string, dir string) ([]loadgen.Query, error) {
	if dir != "" {
		found, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("--queries %s: no *.json file there", dir)
		}
		files = append(files, found...)
	}
	var queries []loadgen.Query
	for _, name := range files {
		body, err := readRegular("--body", name, maxBodyFile)
		if err != nil {
			return nil, err
		}
		queries = append(queries, loadgen.Query{Name: filepath.Base(name), Body: body})
	}
	return queries, nil
}

// preflight sends each query once: an unreachable server, a refused key or a refused body is
// said before any load, with the server's details.
func preflight(ctx context.Context, c *client.Client, url string, queries []loadgen.Query) error {
	for _, q := range queries {
		_, err := c.RawRequest(ctx, http.MethodPost, "/v3/query", q.Body)
		e, isAPI := client.AsError(err)
		switch {
		case err == nil:
		case !isAPI:
			return fmt.Errorf("cannot reach the server at %s: %w", url, errors.Unwrap(err))
		case e.StatusCode == http.StatusUnauthorized || e.StatusCode == http.StatusForbidden && e.Code == client.CodeInsufficientScope:
			return fmt.Errorf("the server refused the key (%d %s): %s", e.StatusCode, e.Code, e.Message)
		default:
			msg := fmt.Sprintf("%s: the server refused the query (%d %s): %s", q.Name, e.StatusCode, e.Code, e.Message)
			for _, d := range e.Details {
				msg += "\n  " + d
			}
			return errors.New(msg)
		}
	}
	return nil
}

// cacheSettings lists the cache settings of --cache, "off" first.
func cacheSettings(cache string) []string {
	if cache == "both" {
		return []string{"off", "on"}
	}
	return []string{cache}
}
