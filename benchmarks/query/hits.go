package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"mtk/benchmarks/internal/figures"
	"mtk/benchmarks/internal/profile"
	"mtk/engine"
)

// hitsDB is the -hits run's own database: a tenant and empty fact tables are all it needs, since
// a cached answer is served whatever its rows.
const hitsDB = "mtk_bench_query_hits"

// runHits measures what an answer cache hit costs the server (-hits): the same query, answered
// once, is sent again and again, first through the API's handler in memory (fasthttp without
// sockets, with authentication, the request log in JSON, the deadline and the scope check as
// served) by two goroutines per core, then over HTTP on loopback at hitsConns connections from a
// child process, then the floor (floorHits) loaded the same way, each for -duration. It prints
// the process's CPU time (user and system, from getrusage) and context switches per hit and the
// hits per second: the handler's whole cost in memory (the load generator's being only the copy
// of a request), the server's alone over HTTP; with -hits-syscalls, the server's system calls
// per hit over HTTP.
func runHits(ctx context.Context, f flags) error {
	st, err := openBenchStores(ctx, f)
	if err != nil {
		return err
	}
	defer st.close()
	t := st.t
	logOut, closeLog, err := hitsLogWriter(f.hitsLog)
	if err != nil {
		return err
	}
	defer closeLog()
	srv, err := startServer(st.pg, st.ch, st.chURL, st.pgURL, serverOptions{log: logOut})
	if err != nil {
		return err
	}
	defer srv.close()                                   //nolint:errcheck
	if err := srv.sys.Versions.Heard(ctx); err != nil { // answers are cached once versions are known
		return err
	}
	// A dashboard tile: the last 30 days by day, a named range resolved at each request.
	body, err := json.Marshal(engine.QueryInput{ProjectID: t.project.ID,
		Fields: []string{"spend", "impressions", "clicks", "ctr", "cpc", "tx_revenue", "roas"},
		Time:   &engine.TimeSpec{Range: "last_30_days", Granularity: "day"}})
	if err != nil {
		return err
	}
	req, err := hitsRequest(body, t.key.Token)
	if err != nil {
		return err
	}
	handler := srv.app.Handler()
	// send serves req once on rc and tells whether the answer came from the cache.
	send := func(rc *fasthttp.RequestCtx) (bool, error) {
		rc.ResetUserValues() // a served request's context (Fiber keeps it there) ends with it
		rc.Init(req, hitsClient, nil)
		handler(rc)
		if rc.Response.StatusCode() != fasthttp.StatusOK {
			return false, fmt.Errorf("status %d: %s", rc.Response.StatusCode(), rc.Response.Body())
		}
		return strings.Contains(string(rc.Response.Header.Peek("Server-Timing")), "cache;desc=hit"), nil
	}
	var rc fasthttp.RequestCtx
	for range 2 { // the first answer is read and kept, the second must be a hit
		if _, err := send(&rc); err != nil {
			return err
		}
	}
	if hit, _ := send(&rc); !hit {
		return fmt.Errorf("the answer was not served from the cache (Server-Timing %q)", rc.Response.Header.Peek("Server-Timing"))
	}
	size := len(rc.Response.Body())
	log.Printf("hits: %d-byte answer, request log %s; %s in memory at %d goroutines, then %s over HTTP at %d connections, then twice %s of the floor (a plain fasthttp server answering the same bytes)",
		size, f.hitsLog, f.duration, 2*runtime.GOMAXPROCS(0), f.duration, hitsConns, f.duration)
	stopProfile, err := profile.Start(f.cpuProfile)
	if err != nil {
		return err
	}
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	n, mem, wall, err := memoryHits(ctx, send, f.duration)
	runtime.ReadMemStats(&ms1)
	stopProfile()
	if err != nil {
		return err
	}
	// The process's heap allocations while the handler ran in memory: the load's are none but
	// its goroutines' start.
	allocs := float64(ms1.Mallocs-ms0.Mallocs) / float64(n)
	httpProfile := ""
	if f.cpuProfile != "" {
		httpProfile = f.cpuProfile + ".http"
	}
	if stopProfile, err = profile.Start(httpProfile); err != nil {
		return err
	}
	runs := make([]httpRun, 3) // mtk, then the floor with fasthttp's defaults and with mtk's timeouts
	runs[0].path = fmt.Sprintf("HTTP, %d connections", hitsConns)
	runs[0].res, runs[0].use, runs[0].calls, err = httpHits(ctx, strings.TrimPrefix(srv.url, "http://"), t.key.Token, body, hitsConns, f.duration, f.hitsSyscalls)
	stopProfile()
	if err != nil {
		return err
	}
	runs[1].path, runs[2].path = "floor: fasthttp's defaults", "floor: mtk's timeouts"
	for i, timeouts := range []fiber.Config{{}, srv.app.Config()} {
		r := &runs[1+i]
		if r.res, r.use, r.calls, err = floorHits(ctx, &rc.Response, timeouts, t.key.Token, body, f.duration, f.hitsSyscalls); err != nil {
			return err
		}
	}
	var redisCPU time.Duration // redis-server's, in the run with rate limits in Redis
	if f.hitsRedis != "" {
		run, cpu, err := redisHits(ctx, st, f.hitsRedis, body, f.duration)
		if err != nil {
			return err
		}
		runs, redisCPU = append(runs, run), cpu
	}
	fmt.Printf("\n| path | answer | hits | seconds | hits/s | server CPU per hit | user | system | context switches per hit |\n|---|---|---|---|---|---|---|---|---|\n")
	perHit := func(d time.Duration, n int64) float64 { return float64(d.Nanoseconds()) / 1000 / float64(n) }
	row := func(path string, n int64, seconds float64, u usage) {
		fmt.Printf("| %s | %d B | %d | %.1f | %.0f | %.1f µs | %.1f µs | %.1f µs | %.2f |\n", path, size, n, seconds, float64(n)/seconds,
			perHit(u.cpu(), n), perHit(u.user, n), perHit(u.sys, n), float64(u.switches)/float64(n))
	}
	row(fmt.Sprintf("in memory, %d goroutines", 2*runtime.GOMAXPROCS(0)), n, wall.Seconds(), mem)
	for _, r := range runs {
		row(r.path, r.res.Hits, r.res.Seconds, r.use)
	}
	fmt.Printf("\nIn memory, %.1f heap allocations per hit.\n", allocs)
	if f.hitsSyscalls {
		fmt.Printf("\n| system calls per hit (perf stat) |")
		for _, e := range syscallEvents {
			fmt.Printf(" %s |", e.name)
		}
		fmt.Printf("\n|---|%s\n", strings.Repeat("---|", len(syscallEvents)))
		for _, r := range runs {
			fmt.Printf("| %s |", r.path)
			for _, e := range syscallEvents {
				fmt.Printf(" %.2f |", float64(r.calls[e.name])/float64(r.res.Hits))
			}
			fmt.Println()
		}
	}
	mtk := runs[0]
	figs := map[string]float64{"hits.http_cpu_us": perHit(mtk.use.cpu(), mtk.res.Hits), "hits.memory_cpu_us": perHit(mem.cpu(), n),
		"hits.memory_allocs": allocs}
	if f.hitsRedis != "" {
		r := runs[len(runs)-1]
		figs["hits.redis_http_cpu_us"], figs["hits.redis_server_cpu_us"] = perHit(r.use.cpu(), r.res.Hits), perHit(redisCPU, r.res.Hits)
		fmt.Printf("\nWith the rate limits in Redis, redis-server used %.1f µs of CPU per hit (%s over %d hits; /proc, 10 ms ticks).\n",
			figs["hits.redis_server_cpu_us"], redisCPU, r.res.Hits)
	}
	return figures.Record(figs)
}

// httpRun is one load over HTTP of the -hits run: what it did, the server's usage, and its
// system calls by syscallEvents' names (when counted).
type httpRun struct {
	path  string
	res   hitsLoadResult
	use   usage
	calls map[string]int64
}

// memoryHits sends the request through the handler in memory (send), by two goroutines per
// core, for d: the hits, the process's usage and the wall time they took.
func memoryHits(ctx context.Context, send func(*fasthttp.RequestCtx) (bool, error), d time.Duration) (int64, usage, time.Duration, error) {
	var hits atomic.Int64
	var failed atomic.Value
	u0, wall0 := processUsage(), time.Now()
	deadline := wall0.Add(d)
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var rc fasthttp.RequestCtx
			for time.Now().Before(deadline) && ctx.Err() == nil {
				hit, err := send(&rc)
				if err == nil && !hit {
					err = fmt.Errorf("a miss during the run (Server-Timing %q)", rc.Response.Header.Peek("Server-Timing"))
				}
				if err != nil {
					failed.Store(err)
					return
				}
				hits.Add(1)
			}
		}()
	}
	wg.Wait()
	u, wall := processUsage().since(u0), time.Since(wall0)
	if err, _ := failed.Load().(error); err != nil {
		return 0, usage{}, 0, err
	}
	return hits.Load(), u, wall, nil
}

// hitsRequest is the hits' request with key, to be served in memory, parsed from its bytes as a
// server parses what it receives (a request only built has no header block as received, which
// the text check reads).
func hitsRequest(body []byte, key string) (*fasthttp.Request, error) {
	var built, req fasthttp.Request
	built.Header.SetMethod(fasthttp.MethodPost)
	built.SetRequestURI("/v3/query")
	built.Header.SetHost("127.0.0.1")
	built.Header.SetContentType("application/json")
	built.Header.Set("x-api-key", key)
	built.SetBody(body)
	if err := req.Read(bufio.NewReader(strings.NewReader(built.String()))); err != nil {
		return nil, err
	}
	return &req, nil
}

// hitsClient is the in-memory requests' client address.
var hitsClient = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
