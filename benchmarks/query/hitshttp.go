package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// The -hits run's load over HTTP comes from a child process (this binary again, told so by
// hitsLoadEnv), so that the server process's CPU time is the server's alone: sockets, Fiber and
// the handler, without the load generator's share.
const (
	hitsLoadEnv  = "MTK_BENCH_HITS_LOAD" // the server's host:port; set only in the child
	hitsKeyEnv   = "MTK_BENCH_HITS_KEY"  // API keys, comma-separated
	hitsConnsEnv = "MTK_BENCH_HITS_CONNS"
	hitsTimeEnv  = "MTK_BENCH_HITS_DURATION"
)

// hitsConns is the connections the HTTP load keeps open (the figure is at 4).
const hitsConns = 4

// hitsLoadResult is what the child reports on its stdout.
type hitsLoadResult struct {
	Hits    int64   `json:"hits"`
	Seconds float64 `json:"seconds"`
	Error   string  `json:"error,omitempty"`
}

// httpHits runs the child load against addr for d over conns connections with body and returns
// the hits it counted and the server's (this process's) usage meanwhile. With syscalls, the child
// runs under `perf stat`, which counts this process's system calls for as long as the child
// runs (its tracepoints cost the server some CPU: figures of such a run are not compared).
func httpHits(ctx context.Context, addr, key string, body []byte, conns int, d time.Duration, syscalls bool) (hitsLoadResult, usage, map[string]int64, error) {
	self, err := os.Executable()
	if err != nil {
		return hitsLoadResult{}, usage{}, nil, err
	}
	name, args, perfOut := self, []string(nil), ""
	if syscalls {
		dir, err := os.MkdirTemp("", "mtk-hits-perf")
		if err != nil {
			return hitsLoadResult{}, usage{}, nil, err
		}
		defer os.RemoveAll(dir)
		perfOut = filepath.Join(dir, "stat.csv")
		name, args = "perf", append(perfStatArgs(os.Getpid(), perfOut), self)
	}
	cmd := exec.CommandContext(ctx, name, args...)
	// The load runs with the Go runtime's defaults: GOMAXPROCS, when set, is the server's knob.
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") })
	cmd.Env = append(env, hitsLoadEnv+"="+addr, hitsKeyEnv+"="+key,
		hitsConnsEnv+"="+strconv.Itoa(conns), hitsTimeEnv+"="+d.String())
	cmd.Stdin = bytes.NewReader(body)
	cmd.Stderr = os.Stderr
	u0 := processUsage()
	out, err := cmd.Output()
	u := processUsage().since(u0)
	if err != nil {
		return hitsLoadResult{}, usage{}, nil, fmt.Errorf("the HTTP load: %w", err)
	}
	var res hitsLoadResult
	if err := json.Unmarshal(out, &res); err != nil {
		return hitsLoadResult{}, usage{}, nil, fmt.Errorf("the HTTP load's report %q: %w", out, err)
	}
	if res.Error != "" {
		return res, usage{}, nil, fmt.Errorf("the HTTP load: %s", res.Error)
	}
	if !syscalls {
		return res, u, nil, nil
	}
	counts, err := readPerfStat(perfOut)
	return res, u, counts, err
}

// hitsLoad is the child's whole work: the body from stdin posted to /v3/query again and again,
// one goroutine per connection, each answer required to be a hit; it prints a hitsLoadResult.
func hitsLoad(addr string) {
	res := func() hitsLoadResult {
		body, err := io.ReadAll(os.Stdin)
		if err != nil {
			return hitsLoadResult{Error: err.Error()}
		}
		conns, err := strconv.Atoi(os.Getenv(hitsConnsEnv))
		if err != nil {
			return hitsLoadResult{Error: err.Error()}
		}
		d, err := time.ParseDuration(os.Getenv(hitsTimeEnv))
		if err != nil {
			return hitsLoadResult{Error: err.Error()}
		}
		hc := &fasthttp.HostClient{Addr: addr, MaxConns: conns}
		var req fasthttp.Request
		req.Header.SetMethod(fasthttp.MethodPost)
		req.SetRequestURI("http://" + addr + "/v3/query")
		req.Header.SetContentType("application/json")
		keys := strings.Split(os.Getenv(hitsKeyEnv), ",") // taken in turn by each connection
		req.SetBody(body)
		var hits atomic.Int64
		var failed atomic.Value
		start := time.Now()
		deadline := start.Add(d)
		var wg sync.WaitGroup
		for range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var r fasthttp.Request
				req.CopyTo(&r)
				var resp fasthttp.Response
				for i := 0; time.Now().Before(deadline); i++ {
					r.Header.Set("x-api-key", keys[i%len(keys)])
					if err := hc.Do(&r, &resp); err != nil {
						failed.Store(err.Error())
						return
					}
					if resp.StatusCode() != fasthttp.StatusOK ||
						!strings.Contains(string(resp.Header.Peek("Server-Timing")), "cache;desc=hit") {
						failed.Store(fmt.Sprintf("status %d, Server-Timing %q", resp.StatusCode(), resp.Header.Peek("Server-Timing")))
						return
					}
					hits.Add(1)
				}
			}()
		}
		wg.Wait()
		res := hitsLoadResult{Hits: hits.Load(), Seconds: time.Since(start).Seconds()}
		if msg, _ := failed.Load().(string); msg != "" {
			res.Error = msg
		}
		return res
	}()
	out, _ := json.Marshal(res)
	fmt.Println(string(out))
}
