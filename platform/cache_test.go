package platform

import (
	"context"
	"testing"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/auth"
)

// A verified key is trusted for KeyCacheTTL: revoked by another process (another Services on the
// same database) it stops working once that passes; revoked through the same Services, at once.
// Expiry is checked on every call.
func TestVerifiedKeysAreCachedBriefly(t *testing.T) {
	s, clk, p := newTestStore(t)
	ctx := context.Background()
	other := New(s.Pool(), clk)
	expires := t0.Add(time.Hour)
	k, err := s.Keys.CreateAPIKey(ctx, p.WorkspaceID, "k", []string{auth.ScopeDataRead}, &expires)
	if err != nil {
		t.Fatal(err)
	}
	code := func() string {
		t.Helper()
		_, err := s.Keys.VerifyAPIKey(ctx, k.Token)
		if err == nil {
			return ""
		}
		e, ok := err.(*apperr.Error)
		if !ok {
			t.Fatal(err)
		}
		return e.Code
	}
	if c := code(); c != "" {
		t.Fatalf("a new key: %s", c)
	}
	if _, err := other.Keys.RevokeAPIKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if c := code(); c != "" {
		t.Fatalf("within the TTL of another process's revocation: %s", c)
	}
	clk.Advance(KeyCacheTTL)
	if c := code(); c != apperr.CodeInvalidAPIKey {
		t.Fatalf("after the TTL: %q", c)
	}

	k2, err := s.Keys.CreateAPIKey(ctx, p.WorkspaceID, "k2", []string{auth.ScopeDataRead}, &expires)
	if err != nil {
		t.Fatal(err)
	}
	k = k2
	if c := code(); c != "" {
		t.Fatalf("second key: %s", c)
	}
	clk.Set(expires)
	if c := code(); c != apperr.CodeExpiredAPIKey {
		t.Fatalf("expired while cached: %q", c)
	}
	clk.Set(t0.Add(time.Minute))
	if c := code(); c != "" {
		t.Fatalf("before expiry again: %s", c)
	}
	if _, err := s.Keys.RevokeAPIKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	if c := code(); c != apperr.CodeInvalidAPIKey {
		t.Fatalf("revoked through the same store: %q", c)
	}
}

// A project's query scope is read again after KeyCacheTTL: a connection created by another
// process (another Services on the same database) shows once that passes; one created through the
// same Services, at once.
func TestProjectScopesAreCachedBriefly(t *testing.T) {
	s, clk, p := newTestStore(t)
	ctx := context.Background()
	other := New(s.Pool(), clk)
	ids := func() []string {
		t.Helper()
		sc, err := s.Projects.ProjectScope(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		return sc.ConnectionIDs
	}
	if got := ids(); len(got) != 0 {
		t.Fatalf("a new project's connections: %v", got)
	}
	c1, err := other.Connections.CreateConnection(ctx, ConnectionInput{ProjectID: p.ID, Kind: KindCustom, Name: "Checkout"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 0 {
		t.Fatalf("within the TTL of another process's change: %v", got)
	}
	clk.Advance(KeyCacheTTL)
	if got := ids(); len(got) != 1 || got[0] != c1.ID {
		t.Fatalf("after the TTL: %v, want [%s]", got, c1.ID)
	}
	c2, err := s.Connections.CreateConnection(ctx, ConnectionInput{ProjectID: p.ID, Kind: KindCustom, Name: "Store"})
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(); len(got) != 2 || got[1] != c2.ID {
		t.Fatalf("after a connection created through the same Services: %v", got)
	}
	if _, err := s.Projects.ProjectScope(ctx, "prj_missing"); err == nil {
		t.Fatal("a missing project was found")
	}
}

// A membership is read once per KeyCacheTTL (a JWT call with X-Workspace-Id asks at every
// request), and no membership is never kept: one made by another process counts at once.
func TestMembershipsAreCachedBriefly(t *testing.T) {
	s, clk, p := newTestStore(t)
	ctx := context.Background()
	other := New(s.Pool(), clk)
	u, err := s.Users.CreateUser(ctx, "ana@example.com", "Ana", "long-password", "", RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	member := func() (Membership, bool) {
		t.Helper()
		m, ok, err := s.Users.Membership(ctx, u.ID, p.WorkspaceID)
		if err != nil {
			t.Fatal(err)
		}
		return m, ok
	}
	if _, ok := member(); ok {
		t.Fatal("a member before joining")
	}
	if _, err := other.Pool().Exec(ctx, "INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)",
		p.WorkspaceID, u.ID, RoleMember, t0); err != nil {
		t.Fatal(err)
	}
	if m, ok := member(); !ok || m.Role != RoleMember || m.Tier != TierDefault {
		t.Fatalf("joined by another process: %+v %v", m, ok)
	}
	if _, err := other.Pool().Exec(ctx, "UPDATE workspaces SET tier = $2 WHERE id = $1", p.WorkspaceID, TierGrowth); err != nil {
		t.Fatal(err)
	}
	if m, _ := member(); m.Tier != TierDefault {
		t.Fatalf("read again within the TTL: %+v", m)
	}
	clk.Advance(KeyCacheTTL)
	if m, _ := member(); m.Tier != TierGrowth {
		t.Fatalf("after the TTL: %+v", m)
	}
}
