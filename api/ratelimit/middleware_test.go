package ratelimit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/clock"
)

// newApp mounts the middleware behind a fake authentication that reads the principal from test
// headers (X-Key, X-User, X-Tier; none means no principal) and in front of /v3/ok and /v3/missing.
func newApp(cfg Config) *fiber.App {
	app := fiber.New(fiber.Config{ErrorHandler: renderError})
	app.Use(func(c *fiber.Ctx) error {
		switch {
		case c.Get("X-Key") != "":
			auth.Set(c, &auth.Principal{Kind: auth.KindAPIKey, KeyID: c.Get("X-Key"), Tier: c.Get("X-Tier")})
		case c.Get("X-User") != "":
			auth.Set(c, &auth.Principal{Kind: auth.KindJWT, UserID: c.Get("X-User"), WorkspaceID: "ws_1", Tier: c.Get("X-Tier")})
		}
		return c.Next()
	})
	app.Use(New(cfg))
	app.Get("/v3/ok", func(c *fiber.Ctx) error { return c.SendString("ok") })
	app.Get("/v3/missing", func(c *fiber.Ctx) error { return apperr.NotFound("Nothing here") })
	return app
}

// renderError stands in for the API's error handler: the envelope and Retry-After.
func renderError(c *fiber.Ctx, err error) error {
	e, ok := apperr.As(err)
	if !ok {
		e = apperr.Internal()
	}
	if e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
	}
	return c.Status(e.Status).JSON(fiber.Map{"error": fiber.Map{"type": e.Type, "code": e.Code, "message": e.Message}})
}

type answer struct {
	status                    int
	limit, remaining, reset   string
	retryAfter, code, message string
}

func call(t *testing.T, app *fiber.App, path string, headers ...string) answer {
	t.Helper()
	a, err := do(app, path, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// do sends GET path with headers given as name, value pairs.
func do(app *fiber.App, path string, headers ...string) (answer, error) {
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{
		status: resp.StatusCode, limit: resp.Header.Get(HeaderLimit), remaining: resp.Header.Get(HeaderRemaining),
		reset: resp.Header.Get(HeaderReset), retryAfter: resp.Header.Get(fiber.HeaderRetryAfter),
	}
	if resp.StatusCode >= 400 {
		var body struct {
			Error struct{ Code, Message string }
		}
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			return a, fmt.Errorf("error body: %w", err)
		}
		a.code, a.message = body.Error.Code, body.Error.Message
	}
	return a, nil
}

func TestHeadersCountDown(t *testing.T) {
	clk := clock.NewFake(t0.Add(15 * time.Second))
	app := newApp(Config{Clock: clk, Enabled: true})
	reset := strconv.FormatInt(t0.Add(Window).Unix(), 10)
	for i := 1; i <= 3; i++ {
		got := call(t, app, "/v3/ok", "X-Key", "key_a")
		want := answer{status: 200, limit: "120", remaining: strconv.Itoa(120 - i), reset: reset}
		if got != want {
			t.Fatalf("call %d: got %+v, want %+v", i, got, want)
		}
	}
	got := call(t, app, "/v3/missing", "X-Key", "key_a")
	want := answer{status: 404, limit: "120", remaining: "116", reset: reset, code: "resource_not_found", message: "Nothing here"}
	if got != want {
		t.Fatalf("error response: got %+v, want %+v", got, want)
	}
}

func TestExceeded(t *testing.T) {
	tests := []struct {
		name       string
		at         time.Duration // into the window
		retryAfter string
	}{
		{"start of the window", 0, "60"},
		{"middle", 20*time.Second + 300*time.Millisecond, "40"},
		{"last instant", 59*time.Second + 999*time.Millisecond, "1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			clk := clock.NewFake(t0.Add(tt.at))
			app := newApp(Config{Clock: clk, Enabled: true})
			for range 120 {
				if a := call(t, app, "/v3/ok", "X-Key", "key_a"); a.status != 200 {
					t.Fatalf("within the limit: %+v", a)
				}
			}
			got := call(t, app, "/v3/ok", "X-Key", "key_a")
			want := answer{
				status: 429, limit: "120", remaining: "0", reset: strconv.FormatInt(t0.Add(Window).Unix(), 10),
				retryAfter: tt.retryAfter, code: "rate_limit_exceeded",
				message: "Rate limit exceeded. Maximum 120 requests per 60s.",
			}
			if got != want {
				t.Fatalf("got %+v, want %+v", got, want)
			}
			if a := call(t, app, "/v3/ok", "X-Key", "key_b"); a.status != 200 || a.remaining != "119" {
				t.Fatalf("another key shares the counter: %+v", a)
			}
			clk.Advance(Window)
			got = call(t, app, "/v3/ok", "X-Key", "key_a")
			want = answer{status: 200, limit: "120", remaining: "119", reset: strconv.FormatInt(t0.Add(2*Window).Unix(), 10)}
			if got != want {
				t.Fatalf("next window: got %+v, want %+v", got, want)
			}
		})
	}
}

func TestTierLimits(t *testing.T) {
	tests := []struct {
		name    string
		headers []string
		limit   int
	}{
		{"api key, default tier", []string{"X-Key", "k", "X-Tier", "default"}, 120},
		{"api key, growth tier", []string{"X-Key", "k", "X-Tier", "growth"}, 300},
		{"api key, enterprise tier", []string{"X-Key", "k", "X-Tier", "enterprise"}, 1000},
		{"api key, unknown tier", []string{"X-Key", "k", "X-Tier", "platinum"}, 120},
		{"jwt, growth tier", []string{"X-User", "usr_1", "X-Tier", "growth"}, 300},
		{"no principal", nil, 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := newApp(Config{Clock: clock.NewFake(t0), Enabled: true})
			for i := range tt.limit {
				if a := call(t, app, "/v3/ok", tt.headers...); a.status != 200 || a.limit != strconv.Itoa(tt.limit) {
					t.Fatalf("call %d: %+v, want 200 with limit %d", i+1, a, tt.limit)
				}
			}
			if a := call(t, app, "/v3/ok", tt.headers...); a.status != 429 {
				t.Fatalf("call %d: %+v, want 429", tt.limit+1, a)
			}
		})
	}
}

func TestCounterKeys(t *testing.T) {
	tests := []struct {
		name      string
		principal *auth.Principal
		ip        string
		wantKey   string
		wantLimit int
	}{
		{"api key", &auth.Principal{Kind: auth.KindAPIKey, KeyID: "key_1", Tier: "growth"}, "10.0.0.1", "key:key_1", 300},
		{"jwt", &auth.Principal{Kind: auth.KindJWT, UserID: "usr_1", WorkspaceID: "ws_1", Tier: "enterprise"}, "10.0.0.1", "user:usr_1:ws_1", 1000},
		{"public principal", &auth.Principal{Kind: auth.KindPublic, ClientIP: "203.0.113.9", Tier: "growth"}, "10.0.0.1", "ip:203.0.113.9", 120},
		{"public principal without ip", &auth.Principal{Kind: auth.KindPublic}, "10.0.0.1", "ip:10.0.0.1", 120},
		{"no principal (public or failed authentication)", nil, "10.0.0.1", "ip:10.0.0.1", 120},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{ProxyHeader: "X-Forwarded-For"})
			var key string
			var limit int
			app.Get("/", func(c *fiber.Ctx) error {
				if tt.principal != nil {
					auth.Set(c, tt.principal)
				}
				key, limit = counter(c)
				return nil
			})
			req := httptest.NewRequest("GET", "/", nil)
			req.Header.Set("X-Forwarded-For", tt.ip)
			if _, err := app.Test(req, -1); err != nil {
				t.Fatal(err)
			}
			if key != tt.wantKey || limit != tt.wantLimit {
				t.Fatalf("counter = %q, %d; want %q, %d", key, limit, tt.wantKey, tt.wantLimit)
			}
		})
	}
}

func TestDisabled(t *testing.T) {
	app := newApp(Config{Clock: clock.NewFake(t0), Enabled: false})
	for i := range 200 {
		a := call(t, app, "/v3/ok", "X-Key", "key_a")
		if a != (answer{status: 200}) {
			t.Fatalf("call %d: %+v, want 200 without rate-limit headers", i+1, a)
		}
	}
	if a := call(t, app, "/v3/missing", "X-Key", "key_a"); a.limit != "" || a.remaining != "" || a.reset != "" {
		t.Fatalf("error response has rate-limit headers: %+v", a)
	}
}

type failingLimiter struct{}

func (failingLimiter) Take(context.Context, string, int, time.Time) (Decision, error) {
	return Decision{}, errors.New("store down")
}

func TestLimiterFailureLetsRequestsThrough(t *testing.T) {
	app := newApp(Config{Limiter: failingLimiter{}, Clock: clock.NewFake(t0), Enabled: true})
	if a := call(t, app, "/v3/ok", "X-Key", "key_a"); a != (answer{status: 200}) {
		t.Fatalf("got %+v, want 200 without rate-limit headers", a)
	}
}

func TestConcurrentRequests(t *testing.T) {
	app := newApp(Config{Clock: clock.NewFake(t0), Enabled: true})
	const workers, each = 10, 15 // 150 calls against a limit of 120
	var mu sync.Mutex
	statuses := map[int]int{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				a, err := do(app, "/v3/ok", "X-Key", "key_a")
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				statuses[a.status]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if statuses[200] != 120 || statuses[429] != 30 {
		t.Fatalf("statuses %v, want 120 × 200 and 30 × 429", statuses)
	}
}
