package platform

import (
	"context"
	"errors"
	"testing"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/ids"
	"mtk/internal/pglisten"
)

// heardWithin is how soon a change committed through one replica must show on another that
// listens: announcements take milliseconds, the TTL (never reached here: the clock is fake) 2 s.
const heardWithin = 200 * time.Millisecond

// eventually fails t unless ok holds within heardWithin, asked again every few milliseconds.
func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(heardWithin)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not seen by the other replica within %v", what, heardWithin)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Two Services over one database stand for two replicas: what one revokes, or a change to a
// project's scope made by hand, the other (listening, its clock stopped so that its TTL never
// passes) stops trusting as soon as the announcement arrives.
func TestRevocationsReachEveryReplica(t *testing.T) {
	replica, clk, p := newTestStore(t)
	other := New(replica.Pool(), clk)
	d := pglisten.New(replica.Pool().Config().ConnConfig, nil)
	if err := replica.Subscribe(d); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	listening := make(chan error)
	go func() { listening <- d.Run(ctx) }()
	t.Cleanup(func() { stop(); <-listening })
	code := func(err error) string {
		var e *apperr.Error
		if errors.As(err, &e) {
			return e.Code
		}
		if err != nil {
			t.Fatal(err)
		}
		return ""
	}

	// revokeIsHeard: a key that replica verifies, revoked through other, is refused by replica.
	revokeIsHeard := func(t *testing.T, what string) {
		t.Helper()
		k, err := other.Keys.CreateAPIKey(ctx, p.WorkspaceID, what, []string{auth.ScopeDataRead}, nil)
		if err != nil {
			t.Fatal(err)
		}
		verify := func() string { _, err := replica.Keys.VerifyAPIKey(ctx, k.Token); return code(err) }
		if c := verify(); c != "" {
			t.Fatalf("a new key: %s", c)
		}
		if _, err := other.Keys.RevokeAPIKey(ctx, k.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, what, func() bool { return verify() == apperr.CodeInvalidAPIKey })
	}

	t.Run("api key", func(t *testing.T) {
		revokeIsHeard(t, "a revoked key")
	})

	t.Run("login tokens", func(t *testing.T) {
		u, err := other.Users.CreateUser(ctx, "ana@example.com", "Ana", "correct horse", p.WorkspaceID, RoleOwner)
		if err != nil {
			t.Fatal(err)
		}
		token := func(id string) auth.LoginToken {
			return auth.LoginToken{UserID: u.ID, ID: id, Generation: u.TokenGeneration, ExpiresAt: t0.Add(time.Hour)}
		}
		out, kept := token("jti-out"), token("jti-kept")
		verify := func(tok auth.LoginToken) string { return code(replica.Users.VerifyLoginToken(ctx, tok)) }
		if verify(out) != "" || verify(kept) != "" {
			t.Fatal("fresh tokens refused")
		}
		if err := other.Users.RevokeLoginToken(ctx, out); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a logout", func() bool { return verify(out) == apperr.CodeInvalidToken })
		if c := verify(kept); c != "" {
			t.Fatalf("another token of the user after a logout: %s", c)
		}
		if _, err := other.Users.SetPassword(ctx, u.Email, "battery staple"); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a password change", func() bool { return verify(kept) == apperr.CodeInvalidToken })
	})

	t.Run("oauth", func(t *testing.T) {
		c, err := other.OAuth.CreateOAuthClient(ctx, OAuthClientInput{Name: "Planner",
			RedirectURIs: []string{"https://planner.example/cb"}, Scopes: []string{auth.ScopeDataRead}})
		if err != nil {
			t.Fatal(err)
		}
		grant := func() APIKey {
			k, err := other.Keys.createAPIKey(ctx, other.pool, APIKey{WorkspaceID: p.WorkspaceID, Name: c.Name,
				Scopes: []string{auth.ScopeDataRead}, OAuthClientID: &c.ID})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := replica.Keys.VerifyAPIKey(ctx, k.Token); err != nil {
				t.Fatal(err)
			}
			return k
		}
		refused := func(k APIKey) func() bool {
			return func() bool {
				_, err := replica.Keys.VerifyAPIKey(ctx, k.Token)
				return code(err) == apperr.CodeInvalidAPIKey
			}
		}
		g := grant()
		if _, err := other.OAuth.RevokeGrant(ctx, p.WorkspaceID, g.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a revoked grant", refused(g))
		g = grant()
		if _, err := other.OAuth.RevokeOAuthClient(ctx, c.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a revoked client's grant", refused(g))
	})

	t.Run("project scope", func(t *testing.T) {
		ws, err := other.Workspaces.CreateWorkspace(ctx, "beta", TierDefault)
		if err != nil {
			t.Fatal(err)
		}
		scope := func() ProjectScope {
			sc, err := replica.Projects.ProjectScope(ctx, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			return sc
		}
		if sc := scope(); sc.WorkspaceID != p.WorkspaceID || sc.Currency != "BRL" {
			t.Fatalf("scope before: %+v", sc)
		}
		// No endpoint moves a project: an operator does it by hand.
		if _, err := other.Pool().Exec(ctx, "UPDATE projects SET workspace_id = $2 WHERE id = $1", p.ID, ws.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a project moved to another workspace", func() bool { return scope().WorkspaceID == ws.ID })
		if _, err := other.Pool().Exec(ctx, "UPDATE projects SET currency = 'USD', timezone = 'UTC' WHERE id = $1", p.ID); err != nil {
			t.Fatal(err)
		}
		eventually(t, "a project's new currency and zone", func() bool {
			sc := scope()
			return sc.Currency == "USD" && sc.Timezone == "UTC"
		})
		con, err := other.Connections.CreateConnection(ctx, ConnectionInput{ProjectID: p.ID, Kind: KindCustom, Name: "Checkout"})
		if err != nil {
			t.Fatal(err)
		}
		eventually(t, "a new connection", func() bool { ids := scope().ConnectionIDs; return len(ids) == 1 && ids[0] == con.ID })
	})
	t.Run("webhook connection", func(t *testing.T) {
		con, err := other.Connections.CreateConnection(ctx, ConnectionInput{ProjectID: p.ID, Kind: KindCustom, Name: "Shop"})
		if err != nil {
			t.Fatal(err)
		}
		webhook := func(key string) (WebhookConnection, string) {
			c, err := replica.Connections.ConnectionByWebhookKey(ctx, key)
			return c, code(err)
		}
		if c, e := webhook(con.WebhookKey); e != "" || !c.TrackingEnabled || c.Project.ID != p.ID {
			t.Fatalf("a new webhook key: %+v %s", c, e)
		}
		// other, which does not listen, read it too: it trusts that until the TTL passes.
		if _, err := other.Connections.ConnectionByWebhookKey(ctx, con.WebhookKey); err != nil {
			t.Fatal(err)
		}
		byHand := func(sql string, args ...any) {
			t.Helper()
			if _, err := other.Pool().Exec(ctx, sql, args...); err != nil {
				t.Fatal(err)
			}
		}
		byHand("UPDATE projects SET timezone = 'Asia/Tokyo', currency = 'EUR' WHERE id = $1", p.ID)
		eventually(t, "the webhook project's new zone and currency", func() bool {
			c, _ := webhook(con.WebhookKey)
			return c.Project.Timezone == "Asia/Tokyo" && c.Project.Currency == "EUR"
		})
		if c, err := other.Connections.ConnectionByWebhookKey(ctx, con.WebhookKey); err != nil || c.Project.Timezone == "Asia/Tokyo" {
			t.Fatalf("a replica that does not listen read the project again within the TTL: %+v %v", c, err)
		}
		clk.Advance(KeyCacheTTL)
		if c, err := other.Connections.ConnectionByWebhookKey(ctx, con.WebhookKey); err != nil || c.Project.Timezone != "Asia/Tokyo" {
			t.Fatalf("a replica that does not listen, after the TTL: %+v %v", c, err)
		}
		byHand("UPDATE connections SET tracking_enabled = false WHERE id = $1", con.ID)
		eventually(t, "tracking turned off", func() bool { c, _ := webhook(con.WebhookKey); return !c.TrackingEnabled })
		rotated := "whk_" + ids.Random(20)
		byHand("UPDATE connections SET webhook_key = $2 WHERE id = $1", con.ID, rotated)
		eventually(t, "a rotated webhook key", func() bool { _, e := webhook(con.WebhookKey); return e == apperr.CodeInvalidAPIKey })
		if _, e := webhook(rotated); e != "" {
			t.Fatalf("the new webhook key: %s", e)
		}
		byHand("DELETE FROM connections WHERE id = $1", con.ID)
		eventually(t, "a deleted connection's key", func() bool { _, e := webhook(rotated); return e == apperr.CodeInvalidAPIKey })
	})
	t.Run("listener reconnects", func(t *testing.T) {
		listener := func() (pid int32) {
			err := replica.Pool().QueryRow(ctx, `SELECT coalesce(max(pid), 0) FROM pg_stat_activity
				WHERE datname = current_database() AND query = $1`, "LISTEN "+revocationsChannel).Scan(&pid)
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		old := listener()
		if old == 0 {
			t.Fatal("no connection listens")
		}
		if _, err := replica.Pool().Exec(ctx, "SELECT pg_terminate_backend($1)", old); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for pid := listener(); pid == 0 || pid == old; pid = listener() {
			if time.Now().After(deadline) {
				t.Fatal("not listening again 10 s after the connection was cut")
			}
			time.Sleep(20 * time.Millisecond)
		}
		revokeIsHeard(t, "a key revoked after reconnecting")
	})
}
