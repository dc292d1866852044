package api

import (
	"context"
	"io"
	"log/slog"
	"testing"

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
// once through the same server and within the cache's 2 s through another (mtk user password);
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

	if _, err := e.store.SetPassword(ctx, tn.user.Email, "a-new-password"); err != nil {
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

	// The command line is another process: the server learns within KeyCacheTTL.
	cli := platform.NewStore(e.store.Pool(), e.clock)
	if _, err := cli.SetPassword(ctx, tn.user.Email, "a-third-password"); err != nil {
		t.Fatal(err)
	}
	if r := e.do("GET", syncPath, nil, bearer(fresh)...); r.Status != 200 {
		t.Fatalf("within the cache's lifetime: %d", r.Status)
	}
	e.clock.Advance(platform.KeyCacheTTL)
	wantError(t, e.do("GET", syncPath, nil, bearer(fresh)...), 401, "authentication_error", "invalid_token")

	for _, bad := range []struct{ email, password, code string }{
		{tn.user.Email, "short", "invalid_parameter"},
		{"nobody@example.com", "long-enough", "resource_not_found"},
	} {
		_, err := e.store.SetPassword(ctx, bad.email, bad.password)
		if e, ok := apperr.As(err); !ok || e.Code != bad.code {
			t.Errorf("SetPassword(%s, %s) = %v, want %s", bad.email, bad.password, err, bad.code)
		}
	}
}
