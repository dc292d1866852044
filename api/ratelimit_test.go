package api_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"mtk/internal/config"
	"mtk/platform"
)

func TestRateLimits(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 20, 0, time.UTC))
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	b := e.newTenant("bolt", platform.TierGrowth, "act_222")

	t.Run("headers on every /v3 response, errors included", func(t *testing.T) {
		for _, r := range []response{
			e.do("GET", "/v3/projects", nil, bearer(b.readKey)...),
			e.do("GET", "/v3/projects", nil),
			e.do("POST", "/v3/auth/login", "{"),
		} {
			if r.Header.Get("X-RateLimit-Limit") == "" || r.Header.Get("X-RateLimit-Remaining") == "" || r.Header.Get("X-RateLimit-Reset") == "" {
				t.Fatalf("%d response without X-RateLimit headers: %v", r.Status, r.Header)
			}
		}
	})

	t.Run("429 after the tier's limit, per key", func(t *testing.T) {
		reset := strconv.FormatInt(time.Date(2026, 3, 10, 15, 1, 0, 0, time.UTC).Unix(), 10)
		for i := 1; i <= 120; i++ {
			r := e.do("GET", "/v3/projects", nil, bearer(a.readKey)...)
			if r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "120" || r.Header.Get("X-RateLimit-Remaining") != strconv.Itoa(120-i) ||
				r.Header.Get("X-RateLimit-Reset") != reset {
				t.Fatalf("call %d: %d %v", i, r.Status, r.Header)
			}
		}
		r := e.do("GET", "/v3/connections/"+a.alpha.ID+"/sync", nil, bearer(a.readKey)...)
		errObj := wantError(t, r, 429, "rate_limit_error", "rate_limit_exceeded")
		if errObj["message"] != "Rate limit exceeded. Maximum 120 requests per 60s." || r.Header.Get("Retry-After") != "40" ||
			r.Header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("429: %v %s", r.Header, r.Body)
		}
		// Another key of the same workspace counts on its own; the growth tier allows 300.
		if r := e.do("GET", "/v3/projects", nil, bearer(e.key(a.ws.ID, nil, "data:read"))...); r.Status != 200 {
			t.Fatalf("a fresh key is limited: %d", r.Status)
		}
		if r := e.do("GET", "/v3/projects", nil, bearer(b.readKey)...); r.Header.Get("X-RateLimit-Limit") != "300" {
			t.Fatalf("growth tier limit %q", r.Header.Get("X-RateLimit-Limit"))
		}
		e.clock.Advance(40 * time.Second)
		if r := e.do("GET", "/v3/projects", nil, bearer(a.readKey)...); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "119" {
			t.Fatalf("new window: %d %v", r.Status, r.Header)
		}
	})
}

// Credentials are judged before limits: a revoked or unknown key is 401 even when its window is
// spent; a refused credential still counts against the caller's IP.
func TestRejectedKeyIs401WhenItsWindowIsSpent(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 20, 0, time.UTC))
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	token := e.key(a.ws.ID, nil, "data:read")
	path := "/v3/connections/" + a.alpha.ID + "/sync"
	for i := 0; i < 120; i++ {
		if r := e.do("GET", path, nil, bearer(token)...); r.Status != 200 {
			t.Fatalf("call %d: %d", i, r.Status)
		}
	}
	wantError(t, e.do("GET", path, nil, bearer(token)...), 429, "rate_limit_error", "rate_limit_exceeded")
	p, err := e.store.Keys.VerifyAPIKey(context.Background(), token)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Keys.RevokeAPIKey(context.Background(), p.KeyID); err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", path, nil, bearer(token)...)
	if errObj := wantError(t, r, 401, "authentication_error", "invalid_api_key"); errObj["message"] != "This API key has been revoked." {
		t.Fatalf("revoked key: %v", errObj)
	}
	// Unknown keys count against the IP, and stay 401 past its limit; a public call is then 429.
	unknown := "mtk_live_" + strings.Repeat("x", 43)
	for i := 0; i < 125; i++ {
		wantError(t, e.do("GET", path, nil, bearer(unknown)...), 401, "authentication_error", "invalid_api_key")
	}
	wantError(t, e.do("POST", "/v3/auth/login", `{"email":"x@example.com","password":"y"}`), 429, "rate_limit_error", "rate_limit_exceeded")
}

func TestRateLimitsOff(t *testing.T) {
	e := newEnv(t)
	e.cfg.RateLimits = config.Off
	e.rebuild()
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	for i := 0; i < 130; i++ {
		r := e.do("GET", "/v3/projects", nil, bearer(a.readKey)...)
		if r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "" {
			t.Fatalf("call %d with limits off: %d %v", i, r.Status, r.Header)
		}
	}
}

// X-Forwarded-For names the client only when the request comes from a trusted balancer
// (MTK_TRUSTED_PROXIES): behind one, each client has its own public limit; from anyone else the
// header is ignored, so that a client cannot pick a fresh limit for each call.
func TestForwardedForOnlyFromTrustedProxies(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 20, 0, time.UTC))
	anonymous := func(client string) int {
		return e.do("GET", "/v3/projects", nil, "X-Forwarded-For", client).Status
	}

	e.cfg.TrustedProxies = []string{"0.0.0.0/0", "::/0"}
	e.rebuild()
	for i := range 120 {
		if s := anonymous("198.51.100.1"); s != 401 {
			t.Fatalf("trusted, call %d: %d, want 401", i+1, s)
		}
	}
	if s := anonymous("198.51.100.1"); s != 429 {
		t.Fatalf("trusted, call 121 of one client: %d, want 429", s)
	}
	if s := anonymous("198.51.100.2"); s != 401 {
		t.Fatalf("trusted, another client: %d, want 401 (its own limit)", s)
	}

	e.cfg.TrustedProxies = []string{"192.0.2.1"} // not where the requests come from
	e.rebuild()
	for i := range 120 {
		if s := anonymous(fmt.Sprintf("203.0.113.%d", i)); s != 401 {
			t.Fatalf("untrusted, call %d: %d, want 401", i+1, s)
		}
	}
	if s := anonymous("203.0.113.200"); s != 429 {
		t.Fatalf("untrusted, a 121st call naming another client: %d, want 429 (the header is ignored)", s)
	}
}
