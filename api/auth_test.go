package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mtk/internal/auth"
	"mtk/platform"
)

func TestLogin(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")

	t.Run("success shape", func(t *testing.T) {
		r := e.do("POST", "/v3/auth/login", map[string]string{"email": "  ACME@example.com ", "password": tn.password})
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		body := r.JSON(t)
		user := body["user"].(map[string]any)
		if user["id"] != tn.user.ID || user["email"] != "acme@example.com" || user["name"] != "User acme" || user["role"] != "admin" {
			t.Fatalf("user %v", user)
		}
		tok, err := auth.ParseJWT([]byte(testSecret), body["token"].(string), e.clock.Now())
		if err != nil || tok.UserID != tn.user.ID {
			t.Fatalf("token subject %q, %v", tok.UserID, err)
		}
	})
	cases := []struct {
		name         string
		body         any
		status       int
		typ, code    string
		detailsCount int
	}{
		{"wrong password", map[string]string{"email": tn.user.Email, "password": "nope-nope"}, 401, "authentication_error", "invalid_credentials", 0},
		{"unknown e-mail", map[string]string{"email": "who@example.com", "password": tn.password}, 401, "authentication_error", "invalid_credentials", 0},
		{"missing both", map[string]string{}, 400, "validation_error", "missing_parameter", 2},
		{"missing password", map[string]string{"email": tn.user.Email}, 400, "validation_error", "missing_parameter", 1},
		{"malformed JSON", `{"email": `, 400, "validation_error", "invalid_parameter", 0},
		{"wrong type", `{"email": 5, "password": "x"}`, 400, "validation_error", "invalid_parameter", 1},
		{"empty body", "", 400, "validation_error", "invalid_parameter", 0},
		{"not an object", `[1,2]`, 400, "validation_error", "invalid_parameter", 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errObj := wantError(t, e.do("POST", "/v3/auth/login", c.body), c.status, c.typ, c.code)
			details, _ := errObj["details"].([]any)
			if len(details) != c.detailsCount {
				t.Fatalf("details %v, want %d lines", errObj["details"], c.detailsCount)
			}
		})
	}
}

// TestAuthenticationErrors pins every 401 row of the contract, on a standard-envelope route and
// on the legacy-body route.
func TestAuthenticationErrors(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	ctx := context.Background()

	past := e.clock.Now().Add(-time.Hour)
	expired := e.key(tn.ws.ID, &past, auth.ScopeDataRead)
	revoked, err := e.store.Keys.CreateAPIKey(ctx, tn.ws.ID, "to revoke", []string{auth.ScopeDataRead}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Keys.RevokeAPIKey(ctx, revoked.ID); err != nil {
		t.Fatal(err)
	}
	jwt := e.login(tn)
	wellFormedUnknown := "mtk_live_" + strings.Repeat("A", 43)

	cases := []struct {
		name    string
		headers []string
		code    string
	}{
		{"no credential", nil, "invalid_api_key"},
		{"malformed key", bearer("mtk_live_short"), "invalid_api_key"},
		{"unknown key", bearer(wellFormedUnknown), "invalid_api_key"},
		{"unknown key in x-api-key", []string{"x-api-key", wellFormedUnknown}, "invalid_api_key"},
		{"garbage bearer", bearer("hello"), "invalid_api_key"},
		{"revoked key", bearer(revoked.Token), "invalid_api_key"},
		{"expired key", bearer(expired), "expired_api_key"},
		{"bad JWT", bearer("aaa.bbb.ccc"), "invalid_token"},
		{"tampered JWT", bearer(jwt[:len(jwt)-3] + "abc"), "invalid_token"},
	}
	syncPath := "/v3/connections/" + tn.alpha.ID + "/sync"
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, e.do("GET", syncPath, nil, c.headers...), 401, "authentication_error", c.code)
			wantLegacy(t, e.do("GET", "/v3/projects", nil, c.headers...), 401, "unauthorized")
			wantLegacy(t, e.do("GET", "/v3/projects/"+tn.project.ID+"/connections", nil, c.headers...), 401, "unauthorized")
		})
	}

	t.Run("JWT expires after 7 days", func(t *testing.T) {
		if r := e.do("GET", "/v3/projects", nil, bearer(jwt)...); r.Status != 200 {
			t.Fatalf("fresh JWT refused: %d %s", r.Status, r.Body)
		}
		e.clock.Advance(7*24*time.Hour + time.Second)
		defer e.clock.Advance(-(7*24*time.Hour + time.Second))
		wantError(t, e.do("GET", syncPath, nil, bearer(jwt)...), 401, "authentication_error", "invalid_token")
	})

	t.Run("key expiring later works until then", func(t *testing.T) {
		later := e.clock.Now().Add(time.Hour)
		k := e.key(tn.ws.ID, &later, auth.ScopeDataRead)
		if r := e.do("GET", syncPath, nil, bearer(k)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		e.clock.Advance(time.Hour)
		defer e.clock.Advance(-time.Hour)
		wantError(t, e.do("GET", syncPath, nil, bearer(k)...), 401, "authentication_error", "expired_api_key")
	})

	t.Run("last used time is recorded", func(t *testing.T) {
		keys, err := e.store.Keys.ListAPIKeys(ctx, tn.ws.ID)
		if err != nil {
			t.Fatal(err)
		}
		used := 0
		for _, k := range keys {
			if k.LastUsedAt != nil {
				used++
			}
		}
		if used == 0 {
			t.Fatal("no key has a last-used time after being used")
		}
	})
}

// TestAuthorizationErrors pins 403 insufficient_scope and access_denied, and the 400 for a JWT
// without X-Workspace-Id where a route needs it.
func TestAuthorizationErrors(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	b := e.newTenant("bolt", platform.TierDefault, "act_222")
	jwtA := e.login(a)

	t.Run("key without data:read", func(t *testing.T) {
		errObj := wantError(t, e.do("GET", "/v3/connections/"+a.alpha.ID+"/sync", nil, bearer(a.trackKey)...), 403, "authorization_error", "insufficient_scope")
		if !strings.Contains(errObj["message"].(string), "data:read") {
			t.Fatalf("message does not name the scope: %v", errObj["message"])
		}
		wantLegacy(t, e.do("GET", "/v3/projects", nil, bearer(a.trackKey)...), 403, "forbidden")
	})
	t.Run("JWT with a workspace the user is not a member of", func(t *testing.T) {
		wantError(t, e.do("GET", "/v3/connections/"+a.alpha.ID+"/sync", nil, append(bearer(jwtA), "X-Workspace-Id", b.ws.ID)...),
			403, "authorization_error", "access_denied")
		wantLegacy(t, e.do("GET", "/v3/projects", nil, append(bearer(jwtA), "X-Workspace-Id", b.ws.ID)...), 403, "forbidden")
	})
	t.Run("project of another workspace", func(t *testing.T) {
		wantLegacy(t, e.do("GET", "/v3/projects/"+b.project.ID+"/connections", nil, bearer(a.readKey)...), 403, "forbidden")
		wantLegacy(t, e.do("GET", "/v3/projects/"+b.project.ID+"/connections", nil, bearer(jwtA)...), 403, "forbidden")
	})
}
