package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"mtk/internal/apitest"
	"mtk/internal/auth"
	"mtk/internal/loadgen"
	"mtk/platform"
)

// benchWorld is a real server with a tenant, a data:read key and two query bodies in files; url
// is where bench sends them (the server's, or a proxy's in front of it).
type benchWorld struct {
	srv    *apitest.Server
	url    string
	key    string
	bodies []string
}

func newBenchWorld(t *testing.T, opts apitest.Options) benchWorld {
	t.Helper()
	srv := apitest.Start(t, opts)
	tn := srv.NewTenant(t, "bench", platform.TierDefault)
	w := benchWorld{srv: srv, url: srv.URL, key: srv.Key(t, tn.Workspace.ID, auth.ScopeDataRead)}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"totals.json":    `{"project_id":"` + tn.Project.ID + `","fields":["spend","clicks"],"time":{"start":"2026-03-01","end":"2026-03-07"}}`,
		"campaigns.json": `{"project_id":"` + tn.Project.ID + `","fields":["spend"],"time":{"start":"2026-03-01","end":"2026-03-31","granularity":"day"},"metadata":{"level":"campaign"}}`,
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		w.bodies = append(w.bodies, path)
	}
	return w
}

// inFront serves a proxy in front of the world's server and returns its URL: each request is
// handed to handle with its number (from 1) and the server to pass it on to.
func (w benchWorld) inFront(t *testing.T, handle func(sent int64, rw http.ResponseWriter, r *http.Request, server http.Handler)) string {
	t.Helper()
	target, err := url.Parse(w.srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	tr := &http.Transport{}
	proxy.Transport = tr
	t.Cleanup(tr.CloseIdleConnections) // after front closes, before the server shuts down
	var sent atomic.Int64
	front := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		handle(sent.Add(1), rw, r, proxy)
	}))
	t.Cleanup(front.Close)
	return front.URL
}

// bench runs mtk bench against the world with its bodies and args.
func (w benchWorld) bench(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	base := []string{"bench", "--url", w.url, "--key", w.key, "--warmup", "100ms", "--duration", "700ms"}
	for _, b := range w.bodies {
		base = append(base, "--body", b)
	}
	return cli(t, append(base, args...)...)
}

// benchJSON runs bench with --json and decodes its report.
func (w benchWorld) benchJSON(t *testing.T, args ...string) (loadgen.Report, string) {
	t.Helper()
	return w.benchReport(t, false, args...)
}

// benchReport is benchJSON that, with refusedOK, also takes bench's exit 1 for a cell refused
// whole (it still prints its report).
func (w benchWorld) benchReport(t *testing.T, refusedOK bool, args ...string) (loadgen.Report, string) {
	t.Helper()
	out, errOut, code := w.bench(t, append(args, "--json")...)
	if code != 0 && !(refusedOK && code == 1 && strings.Contains(errOut, "was refused")) {
		t.Fatalf("mtk bench %v: exit %d: %s", args, code, errOut)
	}
	var r loadgen.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("mtk bench printed %q: %v", out, err)
	}
	return r, out
}

// TestBenchCountsAddUp: against the default tier's rate limit, some requests are refused with
// 429; in every figure requests are answers plus errors, and the mix is the sum of the queries.
func TestBenchCountsAddUp(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{})
	// The first cell may spend the minute's limit, so that the second is refused whole.
	r, _ := w.benchReport(t, true, "--concurrency", "1,4")
	if len(r.Cells) != 2 || r.Cells[0].Key() != "concurrency 1, cache on" || r.Cells[1].Key() != "concurrency 4, cache on" {
		t.Fatalf("cells %+v", r.Cells)
	}
	limited := 0
	for _, c := range r.Cells {
		sum := 0
		for _, s := range append(c.Queries, c.Mix) {
			errs := 0
			for _, n := range s.Errors {
				errs += n
			}
			if s.Requests != s.Answers+errs || s.Requests == 0 {
				t.Errorf("%s %s: %d requests, %d answers, errors %v", c.Key(), s.Name, s.Requests, s.Answers, s.Errors)
			}
			if s.Name != "mix" {
				sum += s.Requests
			}
		}
		if sum != c.Mix.Requests || len(c.Queries) != 2 {
			t.Errorf("%s: the queries' requests add up to %d, the mix has %d", c.Key(), sum, c.Mix.Requests)
		}
		limited += c.Mix.Errors["429 rate_limit_exceeded"]
	}
	if limited == 0 {
		t.Errorf("no request was refused by the rate limit of 120 a minute: %+v", r.Cells)
	}
}

// TestBenchCache: with --cache both, the cell with the cache off misses every time (Server-Timing
// says miss and db time is spent) and the cell with it on hits every time (the first send, before
// the load, filled the cache).
func TestBenchCache(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	r, _ := w.benchJSON(t, "--concurrency", "2", "--cache", "both")
	if len(r.Cells) != 2 {
		t.Fatalf("cells %+v", r.Cells)
	}
	off, on := r.Cells[0], r.Cells[1]
	if off.Cache != "off" || on.Cache != "on" {
		t.Fatalf("cells %s, %s; want cache off then on", off.Key(), on.Key())
	}
	for _, s := range append(off.Queries, off.Mix) {
		if s.Answers == 0 || s.CacheHits != 0 || s.Errors != nil {
			t.Errorf("cache off, %s: %+v; want answers, all misses", s.Name, s)
		}
	}
	for _, s := range append(on.Queries, on.Mix) {
		if s.Answers == 0 || s.CacheHits != 1 || s.DB != 0 || s.Errors != nil {
			t.Errorf("cache on, %s: %+v; want answers, all hits without db time", s.Name, s)
		}
	}
	if on.Mix.Requests <= off.Mix.Requests/2 {
		t.Errorf("answers from the cache came slower than a half of the fresh ones: %d vs %d requests", on.Mix.Requests, off.Mix.Requests)
	}
	out, errOut, code := w.bench(t, "--cache", "off")
	if code != 0 || !strings.Contains(out, "concurrency 1, cache off") || !strings.Contains(out, "totals.json") ||
		!strings.Contains(out, "mix") || !strings.Contains(out, "p99 ms") || errOut != "" {
		t.Errorf("table: exit %d, stderr %q:\n%s", code, errOut, out)
	}
}

// TestBenchRefusesBadInput: an unreachable server, a refused key and a refused body are each a
// message on stderr and a non-zero exit, before any load.
func TestBenchRefusesBadInput(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	bad := filepath.Join(t.TempDir(), "bad.json")
	if err := os.WriteFile(bad, []byte(`{"project_id":"prj_x","fields":["nope"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	// A FIFO that nobody writes (reading it would wait forever), and files one byte over the
	// limits (sparse: their size is what is refused, before a byte is read).
	fifo := filepath.Join(t.TempDir(), "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big, huge := filepath.Join(t.TempDir(), "big.json"), filepath.Join(t.TempDir(), "huge.json")
	for name, size := range map[string]int64{big: 1<<20 + 1, huge: 64<<20 + 1} {
		if err := os.WriteFile(name, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(name, size); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"unreachable", []string{"--url", "http://" + freeAddr(t)}, []string{"cannot reach the server at http://127.0.0.1:"}},
		{"refused key", []string{"--key", "mtk_live_nope"}, []string{"the server refused the key (401 invalid_api_key)"}},
		{"refused body", []string{"--body", bad}, []string{"bad.json: the server refused the query (400 ", "fields[0]: "}},
		{"no body", []string{"--body", filepath.Join(t.TempDir(), "none.json")}, []string{"none.json"}},
		{"bad cache", []string{"--cache", "maybe"}, []string{"--cache is on, off or both"}},
		{"a device for a body", []string{"--body", "/dev/zero"}, []string{"--body /dev/zero: not a regular file"}},
		{"a FIFO for a body", []string{"--body", fifo}, []string{"--body " + fifo + ": not a regular file"}},
		{"a body over 1 MiB", []string{"--body", big}, []string{"--body " + big + ": 1048577 bytes, at most 1048576"}},
		{"a device to compare", []string{"--compare", "/dev/zero"}, []string{"--compare /dev/zero: not a regular file"}},
		{"a FIFO to compare", []string{"--compare", fifo}, []string{"--compare " + fifo + ": not a regular file"}},
		{"a report over 64 MiB", []string{"--compare", huge}, []string{"--compare " + huge + ": 67108865 bytes, at most 67108864"}},
		{"too many callers", []string{"--concurrency", "10000000"}, []string{"--concurrency: 10000000 is over the most, 10000"}},
		{"too fast", []string{"--rate", "100001"}, []string{"--rate: 100001 is over the most, 100000 a second"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errOut, code := w.bench(t, c.args...)
			for _, want := range c.want {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q, want %q", errOut, want)
				}
			}
			if code == 0 || out != "" {
				t.Errorf("exit %d, stdout %q; want a non-zero exit and nothing printed", code, out)
			}
		})
	}
}

// TestBenchOpenModelHoldsItsRate: at 50 requests a second against a server that answers in
// time, the open model sends the scheduled number of requests, within 2 %, and exits 0.
func TestBenchOpenModelHoldsItsRate(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	r, _ := w.benchJSON(t, "--rate", "50", "--duration", "1s")
	if len(r.Cells) != 1 || r.Cells[0].Key() != "rate 50, cache on" {
		t.Fatalf("cells %+v", r.Cells)
	}
	c := r.Cells[0]
	if c.Mix.Requests < 49 || c.Mix.Requests > 51 || c.Achieved < 49 || c.Achieved > 51 || c.Mix.Answers != c.Mix.Requests {
		t.Errorf("rate 50 for 1s: %d requests (%d answers), sent at %.1f/s; want 50 within 2 %%", c.Mix.Requests, c.Mix.Answers, c.Achieved)
	}
}

// TestBenchOpenModelReportsQueueing: in front of a server slowed to 200 ms an answer, with two
// requests in flight at most, 20 a second cannot be sent: the run says so with the rate it
// achieved and exits non-zero, still printing its figures, whose latencies (counted from the
// scheduled starts) hold the wait.
func TestBenchOpenModelReportsQueueing(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	w.url = w.inFront(t, func(_ int64, rw http.ResponseWriter, r *http.Request, server http.Handler) {
		time.Sleep(200 * time.Millisecond) // the slow server is the subject, not a wait
		server.ServeHTTP(rw, r)
	})
	out, errOut, code := w.bench(t, "--rate", "20", "--max-inflight", "2", "--duration", "1s", "--json")
	if code == 0 || !strings.Contains(errOut, "rate 20, cache on: could not send at 20 req/s, sent at ") ||
		!strings.Contains(errOut, "slots of --max-inflight") {
		t.Fatalf("exit %d, stderr %q; want a non-zero exit that names the rate achieved", code, errOut)
	}
	var r loadgen.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Cells) != 1 {
		t.Fatalf("stdout %q: %v", out, err)
	}
	c := r.Cells[0]
	if c.Achieved >= 0.98*20 || c.Queued == 0 || c.Mix.P50 < 200 || c.Mix.Max < 300 {
		t.Errorf("sent at %.1f/s, %d queued, p50 %.0f ms, max %.0f ms; want short of 20/s, queued requests, latencies above 200 ms that grow",
			c.Achieved, c.Queued, c.Mix.P50, c.Mix.Max)
	}
}

// TestBenchJSONIntoCompare: a --json run read back by --compare prints each figure's ratio to it
// for the cells both have: all hits then and now is ×1.00 of cache hits; a file that is not such
// an output is refused.
func TestBenchJSONIntoCompare(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	_, out := w.benchJSON(t, "--concurrency", "1,2")
	earlier := filepath.Join(t.TempDir(), "earlier.json")
	if err := os.WriteFile(earlier, []byte(out), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := w.bench(t, "--concurrency", "2,3", "--compare", earlier)
	_, comparison, ok := strings.Cut(out, "Compared with the earlier run")
	if code != 0 || !ok {
		t.Fatalf("exit %d, stderr %q:\n%s", code, errOut, out)
	}
	if !strings.Contains(comparison, "concurrency 3, cache on: not in the earlier run") {
		t.Errorf("the cell the earlier run lacks is not named:\n%s", comparison)
	}
	_, cell, _ := strings.Cut(comparison, "concurrency 2, cache on\n")
	rows := 0
	for _, line := range strings.Split(cell, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 10 || !strings.HasSuffix(fields[0], ".json") && fields[0] != "mix" {
			continue
		}
		rows++
		for _, f := range fields[1:6] {
			if !strings.HasPrefix(f, "×") {
				t.Errorf("%s: %q is not a ratio: %q", fields[0], f, line)
			}
		}
		if fields[9] != "×1.00" {
			t.Errorf("%s: cache hits %s, want ×1.00: %q", fields[0], fields[9], line)
		}
	}
	if rows != 3 {
		t.Errorf("%d rows compared, want two queries and the mix:\n%s", rows, comparison)
	}
	notJSON := filepath.Join(t.TempDir(), "x.json")
	if err := os.WriteFile(notJSON, []byte(`{"a":1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := w.bench(t, "--compare", notJSON); code == 0 || !strings.Contains(errOut, "not the --json output of mtk bench") {
		t.Errorf("--compare of another file: exit %d, stderr %q", code, errOut)
	}
}

// TestBenchSaysWhenEveryRequestIsRefused: behind a limit that lets only the first sends through
// (bench's check of each body), every request of the cell is a 429: the run prints its figures,
// says why on stderr and exits 1.
func TestBenchSaysWhenEveryRequestIsRefused(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	w.url = w.inFront(t, func(sent int64, rw http.ResponseWriter, r *http.Request, server http.Handler) {
		if sent <= int64(len(w.bodies)) {
			server.ServeHTTP(rw, r)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Header().Set("Retry-After", "60")
		rw.WriteHeader(http.StatusTooManyRequests)
		rw.Write([]byte(`{"error":{"type":"rate_limit_error","code":"rate_limit_exceeded","message":"Rate limit exceeded.","details":null,"request_id":"req_1"}}`)) //nolint:errcheck
	})
	out, errOut, code := w.bench(t, "--concurrency", "2")
	if code != 1 || !strings.Contains(errOut, "concurrency 2, cache on: every one of its ") ||
		!strings.Contains(errOut, "requests was refused (") || !strings.Contains(errOut, " × 429 rate_limit_exceeded)") ||
		!strings.Contains(errOut, "MTK_RATE_LIMITS=off") || out == "" {
		t.Fatalf("exit %d, stderr %q, stdout %q; want exit 1 saying why, after the figures", code, errOut, out)
	}
}

// TestBenchStopsOnSignal: a run of a real mtk process stopped by SIGTERM or SIGINT ends at once,
// says so, and exits 2.
func TestBenchStopsOnSignal(t *testing.T) {
	w := newBenchWorld(t, apitest.Options{RateLimitsOff: true})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			// The load has begun once the server got more than bench's check and fill of its
			// one body.
			loading := make(chan struct{})
			var once sync.Once
			front := w.inFront(t, func(sent int64, rw http.ResponseWriter, r *http.Request, server http.Handler) {
				if sent > 2 {
					once.Do(func() { close(loading) })
				}
				server.ServeHTTP(rw, r)
			})
			args := []string{"bench", "--url", front, "--key", w.key, "--duration", "60s", "--warmup", "0s", "--body", w.bodies[0]}
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), asMTK+"=1", "MTK_TEST_ARGS="+strings.Join(args, " "))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			select {
			case <-loading:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill() //nolint:errcheck
				t.Fatalf("bench sent no load within 30 s; stderr %q", stderr.String())
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill() //nolint:errcheck
				t.Fatalf("bench still running 10 s after %s", sig)
			}
			if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "mtk bench: stopped by SIGINT or SIGTERM") {
				t.Fatalf("exit %d, stderr %q; want 2 and a line saying it was stopped", code, stderr.String())
			}
		})
	}
}
