package api_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/jobs"
	"mtk/platform"
)

// loginAs posts a login with e-mail and password and the extra headers.
func (e *env) loginAs(email, password string, headers ...string) response {
	e.t.Helper()
	return e.do("POST", "/v3/auth/login", map[string]string{"email": email, "password": password}, headers...)
}

// TestLoginLimitPerIPWhateverHeaders: a refused Authorization header no longer lifts the login
// limit (issue 25: 130 guesses with `Authorization: Bearer x` were 130 × 401). Login counts per
// client IP at the public limit whatever credential comes with it, valid ones included.
func TestLoginLimitPerIPWhateverHeaders(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	e.clock.Set(time.Date(2026, 3, 10, 14, 59, 0, 0, time.UTC))
	jwt := e.login(tn)
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	for i := 1; i <= 120; i++ {
		// A new e-mail each time, so that only the IP's limit applies.
		r := e.loginAs(fmt.Sprintf("guess%d@example.com", i), "wrong-password", "Authorization", "Bearer x")
		wantError(t, r, 401, "authentication_error", "invalid_credentials")
		if got := r.Header.Get("X-RateLimit-Remaining"); got != strconv.Itoa(120-i) {
			t.Fatalf("login %d: X-RateLimit-Remaining %q, want %d", i, got, 120-i)
		}
	}
	for _, headers := range [][]string{
		{"Authorization", "Bearer x"},
		{"x-api-key", "mtk_live_" + strings.Repeat("x", 43)},
		bearer(tn.readKey),
		bearer(jwt),
		nil,
	} {
		r := e.loginAs("guess-more@example.com", "wrong-password", headers...)
		if errObj := wantError(t, r, 429, "rate_limit_error", "rate_limit_exceeded"); errObj["message"] != "Rate limit exceeded. Maximum 120 requests per 60s." ||
			r.Header.Get("Retry-After") != "60" {
			t.Fatalf("login past the IP's limit with %v: %v %s", headers, r.Header, r.Body)
		}
	}
	// The key itself was not spent by the logins sent with it.
	if r := e.do("GET", "/v3/projects", nil, bearer(tn.readKey)...); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "119" {
		t.Fatalf("the key after logins sent with it: %d %v", r.Status, r.Header)
	}
}

// TestLoginLimitPerEmail: after 10 failed passwords for one e-mail in 15 minutes, the 11th
// attempt is 429 with Retry-After, for a registered e-mail and an unknown one alike, whatever the
// password; the window slides; a success clears its own e-mail's failures and no other's.
func TestLoginLimitPerEmail(t *testing.T) {
	e := newEnv(t)
	acme := e.newTenant("acme", platform.TierDefault, "act_111")
	bolt := e.newTenant("bolt", platform.TierDefault, "act_222")
	start := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	e.clock.Set(start)

	refused := map[string]map[string]any{}
	for _, email := range []string{acme.user.Email, "nobody@example.com"} {
		for i := 1; i <= 10; i++ {
			// The e-mail is normalized: case and spaces do not make another account.
			variant := email
			if i%2 == 0 {
				variant = "  " + strings.ToUpper(email) + " "
			}
			wantError(t, e.loginAs(variant, "wrong-password"), 401, "authentication_error", "invalid_credentials")
		}
		r := e.loginAs(email, acme.password) // the right password of acme changes nothing
		errObj := wantError(t, r, 429, "rate_limit_error", "rate_limit_exceeded")
		if r.Header.Get("Retry-After") != "900" {
			t.Fatalf("%s: Retry-After %q, want 900", email, r.Header.Get("Retry-After"))
		}
		delete(errObj, "request_id")
		refused[email] = errObj
	}
	if fmt.Sprint(refused[acme.user.Email]) != fmt.Sprint(refused["nobody@example.com"]) {
		t.Fatalf("a registered and an unknown e-mail are refused differently:\n%v\n%v", refused[acme.user.Email], refused["nobody@example.com"])
	}
	if r := e.loginAs(bolt.user.Email, bolt.password); r.Status != 200 {
		t.Fatalf("another e-mail is limited: %d %s", r.Status, r.Body)
	}

	e.clock.Set(start.Add(15*time.Minute - time.Second))
	if r := e.loginAs(acme.user.Email, acme.password); r.Status != 429 || r.Header.Get("Retry-After") != "1" {
		t.Fatalf("a second before the window ends: %d %v", r.Status, r.Header)
	}
	e.clock.Set(start.Add(15 * time.Minute))
	if r := e.loginAs(acme.user.Email, acme.password); r.Status != 200 {
		t.Fatalf("15 minutes after the first failure: %d %s", r.Status, r.Body)
	}
	wantError(t, e.loginAs("nobody@example.com", "wrong-password"), 401, "authentication_error", "invalid_credentials")

	// A success clears its e-mail's failures (9 failures, a success, then 10 more are allowed),
	// and only its own: the 9 failures of another e-mail still count.
	for range 9 {
		e.loginAs(bolt.user.Email, "wrong-password")
		e.loginAs("other@example.com", "wrong-password")
	}
	if r := e.loginAs(bolt.user.Email, bolt.password); r.Status != 200 {
		t.Fatalf("bolt's password after 9 failures: %d %s", r.Status, r.Body)
	}
	for i := 1; i <= 10; i++ {
		wantError(t, e.loginAs(bolt.user.Email, "wrong-password"), 401, "authentication_error", "invalid_credentials")
	}
	wantError(t, e.loginAs(bolt.user.Email, bolt.password), 429, "rate_limit_error", "rate_limit_exceeded")
	wantError(t, e.loginAs("other@example.com", "wrong-password"), 401, "authentication_error", "invalid_credentials")
	wantError(t, e.loginAs("other@example.com", "wrong-password"), 429, "rate_limit_error", "rate_limit_exceeded")
}

// TestConsentSignInLimitPerEmail: the consent page signs in under login's per-e-mail limit, and
// shares its count: past it, the page's error step with 429 and Retry-After.
func TestConsentSignInLimitPerEmail(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	client := e.newClient(false, auth.ScopeDataRead)
	f := e.startFlow(client, nil)
	f.open()
	for range 5 {
		wantError(t, e.loginAs(tn.user.Email, "wrong-password"), 401, "authentication_error", "invalid_credentials")
	}
	for i := 1; i <= 5; i++ {
		r := f.post(url.Values{"action": {"signin"}, "email": {tn.user.Email}, "password": {"wrong-password"}})
		if r.Status != 200 || !strings.Contains(string(r.Body), "Incorrect e-mail or password") {
			t.Fatalf("wrong password %d on the page: %d %s", i, r.Status, r.Body)
		}
	}
	r := f.post(url.Values{"action": {"signin"}, "email": {tn.user.Email}, "password": {tn.password}})
	if r.Status != 429 || r.Header.Get("Retry-After") != "900" || !strings.Contains(string(r.Body), `data-step="error"`) ||
		!strings.Contains(string(r.Body), "Too many failed sign-ins for this e-mail") || strings.Contains(string(r.Body), `name="signin"`) {
		t.Fatalf("the 11th sign-in: %d %v\n%s", r.Status, r.Header, r.Body)
	}
	wantError(t, e.loginAs(tn.user.Email, tn.password), 429, "rate_limit_error", "rate_limit_exceeded")
}

// TestLogout: logout revokes the token it is called with, at once (the check is cached), and no
// other; a revoked token is 401 invalid_token with a Bearer challenge; the revocation is purged
// once the token would have expired.
func TestLogout(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	first, second := e.login(tn), e.login(tn)
	if r := e.do("GET", "/v3/projects", nil, bearer(first)...); r.Status != 200 { // now cached as valid
		t.Fatalf("fresh token: %d %s", r.Status, r.Body)
	}
	r := e.do("POST", "/v3/auth/logout", nil, bearer(first)...)
	if r.Status != 204 || len(r.Body) != 0 {
		t.Fatalf("logout: %d %q", r.Status, r.Body)
	}
	for _, r := range []response{
		e.do("GET", "/v3/connections/"+tn.alpha.ID+"/sync", nil, bearer(first)...),
		e.do("POST", "/v3/auth/logout", nil, bearer(first)...),
	} {
		wantError(t, r, 401, "authentication_error", "invalid_token")
		if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="mtk", error="invalid_token"` {
			t.Fatalf("a logged-out token: WWW-Authenticate %q", got)
		}
	}
	wantLegacy(t, e.do("GET", "/v3/projects", nil, bearer(first)...), 401, "unauthorized")
	if r := e.do("GET", "/v3/projects", nil, bearer(second)...); r.Status != 200 {
		t.Fatalf("logging one token out logged out another: %d %s", r.Status, r.Body)
	}

	wantError(t, e.do("POST", "/v3/auth/logout", nil, bearer(tn.readKey)...), 403, "authorization_error", "access_denied")
	r = e.do("POST", "/v3/auth/logout", nil)
	wantError(t, r, 401, "authentication_error", "invalid_api_key")
	if got := r.Header.Get("WWW-Authenticate"); got != `Bearer realm="mtk"` {
		t.Fatalf("logout without a credential: WWW-Authenticate %q", got)
	}

	ctx := context.Background()
	countRevoked := func() (n int) {
		t.Helper()
		if err := e.store.Pool().QueryRow(ctx, "SELECT count(*) FROM revoked_tokens").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	runner, err := jobs.New(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), e.sys.Jobs())
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.RunNow("revoked-tokens-purge"); err != nil || countRevoked() != 1 {
		t.Fatalf("purge before the token expired: %v, %d rows left, want 1", err, countRevoked())
	}
	e.clock.Advance(auth.JWTLifetime)
	if err := runner.RunNow("revoked-tokens-purge"); err != nil || countRevoked() != 0 {
		t.Fatalf("purge after the token expired: %v, %d rows left, want 0", err, countRevoked())
	}
}

// TestPasswordChangeRevokesTokens: every token issued before a password change is refused, at
// once through the same server and as soon as it is announced through another (mtk user password);
// the new password's tokens work and the old password no longer logs in.
func TestPasswordChangeRevokesTokens(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	other := e.newTenant("bolt", platform.TierDefault, "act_222")
	ctx := context.Background()
	syncPath := "/v3/connections/" + tn.alpha.ID + "/sync"
	old, otherUsers := e.login(tn), e.login(other)
	if r := e.do("GET", syncPath, nil, bearer(old)...); r.Status != 200 {
		t.Fatalf("fresh token: %d", r.Status)
	}

	if _, err := e.store.Users.SetPassword(ctx, tn.user.Email, "a-new-password"); err != nil {
		t.Fatal(err)
	}
	wantError(t, e.do("GET", syncPath, nil, bearer(old)...), 401, "authentication_error", "invalid_token")
	wantError(t, e.loginAs(tn.user.Email, tn.password), 401, "authentication_error", "invalid_credentials")
	tn.password = "a-new-password"
	fresh := e.login(tn)
	if r := e.do("GET", syncPath, nil, bearer(fresh)...); r.Status != 200 {
		t.Fatalf("a token of the new password: %d %s", r.Status, r.Body)
	}
	if r := e.do("GET", "/v3/projects", nil, bearer(otherUsers)...); r.Status != 200 {
		t.Fatalf("another user's token: %d %s", r.Status, r.Body)
	}

	// The command line is another process: the server hears of it at once (the fake clock keeps
	// the cache's lifetime from passing meanwhile).
	cli := platform.New(e.store.Pool(), e.clock)
	if _, err := cli.Users.SetPassword(ctx, tn.user.Email, "a-third-password"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(200 * time.Millisecond)
	r := e.do("GET", syncPath, nil, bearer(fresh)...)
	for ; r.Status == 200 && time.Now().Before(deadline); r = e.do("GET", syncPath, nil, bearer(fresh)...) {
		time.Sleep(5 * time.Millisecond)
	}
	wantError(t, r, 401, "authentication_error", "invalid_token")

	for _, bad := range []struct{ email, password, code string }{
		{tn.user.Email, "short", "invalid_parameter"},
		{"nobody@example.com", "long-enough", "resource_not_found"},
	} {
		_, err := e.store.Users.SetPassword(ctx, bad.email, bad.password)
		if e, ok := apperr.As(err); !ok || e.Code != bad.code {
			t.Errorf("SetPassword(%s, %s) = %v, want %s", bad.email, bad.password, err, bad.code)
		}
	}
}
