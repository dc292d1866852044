package api_test

import (
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"

	"mtk/api"
	"mtk/internal/metrics"
	"mtk/internal/metrics/metricstest"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

// replicas are n apps over e's stores and the Redis at redisURL (keys under prefix), as n
// replicas of mtk behind a load balancer; the first is measured by m (nil: none).
func (e *env) replicas(n int, redisURL, prefix string, m *metrics.Metrics) []*fiber.App {
	e.t.Helper()
	chs := make([]driver.Conn, n)
	for i := range chs {
		chs[i] = e.ch
	}
	apps := make([]*fiber.App, n)
	for i, sys := range e.replicasOver(chs, redisURL, prefix, m) {
		apps[i] = api.New(sys.API())
	}
	return apps
}

// replicasOver are the systems of replicas as replicas makes them, one over each of chs.
func (e *env) replicasOver(chs []driver.Conn, redisURL, prefix string, m *metrics.Metrics) []*wire.System {
	e.t.Helper()
	cfg := e.cfg
	cfg.RedisURL = redisURL
	out := make([]*wire.System, len(chs))
	for i, ch := range chs {
		opts := wire.Options{Clock: e.clock, Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), RedisPrefix: prefix}
		if i == 0 {
			opts.Metrics = m
		}
		sys, err := wire.Build(cfg, e.store.Pool(), ch, opts)
		if err != nil {
			e.t.Fatal(err)
		}
		out[i] = sys
		e.t.Cleanup(sys.Close)
	}
	return out
}

// TestRateLimitsSharedThroughRedis: the tier's limit holds across three replicas sharing one
// Redis: limit + 1 requests spread over them get exactly one 429, with the headers and answer
// of the in-process limiter (TestRateLimits).
func TestRateLimitsSharedThroughRedis(t *testing.T) {
	e := newEnv(t)
	rd := testenv.NewRedis(t)
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 20, 0, time.UTC))
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	apps := e.replicas(3, rd.URL, rd.Prefix, nil)
	reset := strconv.FormatInt(time.Date(2026, 3, 10, 15, 1, 0, 0, time.UTC).Unix(), 10)
	for i := 1; i <= 120; i++ {
		e.app = apps[i%3]
		r := e.do("GET", "/v3/projects", nil, bearer(a.readKey)...)
		if r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "120" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(120-i) ||
			r.Header.Get("X-RateLimit-Reset") != reset {
			t.Fatalf("call %d on replica %d: %d %v", i, i%3, r.Status, r.Header)
		}
	}
	e.app = apps[1]
	r := e.do("GET", "/v3/connections/"+a.alpha.ID+"/sync", nil, bearer(a.readKey)...)
	errObj := wantError(t, r, 429, "rate_limit_error", "rate_limit_exceeded")
	if errObj["message"] != "Rate limit exceeded. Maximum 120 requests per 60s." || r.Header.Get("Retry-After") != "40" ||
		r.Header.Get("X-RateLimit-Remaining") != "0" || r.Header.Get("X-RateLimit-Reset") != reset {
		t.Fatalf("429: %v %s", r.Header, r.Body)
	}
	e.clock.Advance(40 * time.Second)
	e.app = apps[2]
	if r := e.do("GET", "/v3/projects", nil, bearer(a.readKey)...); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "119" {
		t.Fatalf("new window: %d %v", r.Status, r.Header)
	}
}

// TestLoginLimitPerEmailSharedThroughRedis: failed passwords for one e-mail count on every
// replica: ten failures spread over two replicas, and both refuse the eleventh attempt.
func TestLoginLimitPerEmailSharedThroughRedis(t *testing.T) {
	e := newEnv(t)
	rd := testenv.NewRedis(t)
	acme := e.newTenant("acme", platform.TierDefault, "act_111")
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	apps := e.replicas(2, rd.URL, rd.Prefix, nil)
	for i := 1; i <= 10; i++ {
		e.app = apps[i%2]
		wantError(t, e.loginAs(acme.user.Email, "wrong-password"), 401, "authentication_error", "invalid_credentials")
	}
	for _, app := range apps {
		e.app = app
		r := e.loginAs(acme.user.Email, acme.password)
		wantError(t, r, 429, "rate_limit_error", "rate_limit_exceeded")
		if r.Header.Get("Retry-After") != "900" {
			t.Fatalf("Retry-After %q, want 900", r.Header.Get("Retry-After"))
		}
	}
	e.clock.Advance(15 * time.Minute)
	e.app = apps[0]
	if r := e.loginAs(acme.user.Email, acme.password); r.Status != 200 {
		t.Fatalf("15 minutes after the first failure: %d %s", r.Status, r.Body)
	}
}

// TestRedisUnreachableFailsOpen: with Redis down, requests and sign-ins pass unlimited and
// without X-RateLimit headers; the log and mtk_ratelimit_unavailable_total say so.
func TestRedisUnreachableFailsOpen(t *testing.T) {
	e := newEnv(t)
	acme := e.newTenant("acme", platform.TierDefault, "act_111")
	m := metrics.New(e.clock, slog.New(slog.NewJSONHandler(e.logs, nil)))
	e.app = e.replicas(1, "redis://127.0.0.1:1", "mtk:", m)[0]
	for range 3 {
		r := e.do("GET", "/v3/projects", nil, bearer(acme.readKey)...)
		if r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "" || r.Header.Get("X-RateLimit-Remaining") != "" ||
			r.Header.Get("X-RateLimit-Reset") != "" {
			t.Fatalf("with Redis down: %d %v", r.Status, r.Header)
		}
	}
	if r := e.loginAs(acme.user.Email, acme.password); r.Status != 200 {
		t.Fatalf("sign-in with Redis down: %d %s", r.Status, r.Body)
	}
	for _, line := range []string{"rate limit: limiter failed; request let through", "password limit: limiter failed; attempt let through"} {
		if !strings.Contains(e.logs.String(), line) {
			t.Fatalf("no log line %q in:\n%s", line, e.logs)
		}
	}
	f := metricstest.Parse(t, strings.NewReader(string(e.do("GET", "/metrics", nil).Body)))
	// The sign-in is a request under the public limit too.
	for limit, want := range map[string]float64{"requests": 3 + 1, "passwords": 1} {
		if v, ok := f.Value("mtk_ratelimit_unavailable_total", "limit", limit); !ok || v != want {
			t.Fatalf("mtk_ratelimit_unavailable_total{limit=%q} = %v (%v), want %v", limit, v, ok, want)
		}
	}
}
