package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mtk/internal/auth"
	"mtk/platform"
)

func TestProjectsAndConnections(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	b := e.newTenant("bolt", platform.TierGrowth, "act_222")
	jwtA := e.login(a)

	t.Run("projects with a key are the key's workspace's", func(t *testing.T) {
		r := e.do("GET", "/v3/projects", nil, bearer(a.readKey)...)
		list := r.List(t)
		if r.Status != 200 || len(list) != 1 || list[0]["id"] != a.project.ID {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		p := list[0]
		for _, k := range []string{"id", "name", "description", "logo", "workspace_id"} {
			if _, ok := p[k]; !ok {
				t.Errorf("project has no %q: %v", k, p)
			}
		}
		if p["workspace_id"] != a.ws.ID || p["description"] != nil || p["logo"] != nil {
			t.Fatalf("project %v", p)
		}
	})
	t.Run("projects with a JWT, with and without X-Workspace-Id", func(t *testing.T) {
		for _, h := range [][]string{bearer(jwtA), append(bearer(jwtA), "X-Workspace-Id", a.ws.ID)} {
			list := e.do("GET", "/v3/projects", nil, h...).List(t)
			if len(list) != 1 || list[0]["id"] != a.project.ID {
				t.Fatalf("JWT sees %v", list)
			}
		}
	})
	t.Run("connections: webhook_url only for Personalizado", func(t *testing.T) {
		writer := e.key(a.ws.ID, nil, auth.ScopeDataRead, auth.ScopeDataWrite)
		r := e.do("GET", "/v3/projects/"+a.project.ID+"/connections", nil, bearer(writer)...)
		list := r.List(t)
		if r.Status != 200 || len(list) != 2 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		byID := map[string]map[string]any{}
		for _, c := range list {
			byID[c["id"].(string)] = c
			if c["workspace_id"] != a.ws.ID {
				t.Fatalf("connection of another workspace: %v", c)
			}
		}
		alpha, custom := byID[a.alpha.ID], byID[a.custom.ID]
		if alpha["source"] != "alpha_ads" || alpha["source_id"] != "act_111" || alpha["status"] != "active" || alpha["webhook_url"] != nil {
			t.Fatalf("alpha connection %v", alpha)
		}
		want := "https://mtk.example/v2/tracking/generic?k=" + a.custom.WebhookKey
		if custom["source"] != "Personalizado" || custom["source_id"] != nil || custom["webhook_url"] != want {
			t.Fatalf("custom connection %v, want webhook_url %s", custom, want)
		}
		if strings.Contains(string(r.Body), "access_token") || strings.Contains(string(r.Body), "webhook_key") {
			t.Fatalf("secrets leak: %s", r.Body)
		}
	})
	t.Run("unknown project", func(t *testing.T) {
		wantError(t, e.do("GET", "/v3/projects/prj_nope/connections", nil, bearer(a.readKey)...), 404, "not_found_error", "resource_not_found")
	})
	t.Run("tenant isolation", func(t *testing.T) {
		for _, path := range []string{
			"/v3/connections/" + b.alpha.ID + "/sync",
			"/v3/connections/act_222/sync",
			"/v3/connections/222/sync",
		} {
			wantError(t, e.do("GET", path, nil, bearer(a.readKey)...), 404, "not_found_error", "resource_not_found")
			wantError(t, e.do("GET", path, nil, bearer(jwtA)...), 404, "not_found_error", "resource_not_found")
		}
		list := e.do("GET", "/v3/projects", nil, bearer(b.readKey)...).List(t)
		if len(list) != 1 || list[0]["id"] != b.project.ID {
			t.Fatalf("b sees %v", list)
		}
	})
}

// webhook_url holds the key that writes orders: only principals that may write data see it (a
// key with data:write, an owner's or admin's JWT); to others it is null.
func TestWebhookURLOnlyForWriters(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierGrowth, "act_111")
	member, err := e.store.Users.CreateUser(context.Background(), "member@example.com", "Member", "password-member", a.ws.ID, platform.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	memberJWT := e.login(tenant{user: member, password: "password-member"})
	adminJWT := e.login(a)
	flow := e.startFlow(e.newClient(false, auth.ScopeDataRead), nil)
	grant := flow.exchange(flow.code(a), nil).JSON(t)["access_token"].(string)
	url := "https://mtk.example/v2/tracking/generic?k=" + a.custom.WebhookKey
	for _, c := range []struct {
		name    string
		headers []string
		want    any
	}{
		{"data:read key", bearer(a.readKey), nil},
		{"data:read and tracking:write key", bearer(e.key(a.ws.ID, nil, auth.ScopeDataRead, auth.ScopeTrackingWrite)), nil},
		{"third party's data:read grant", bearer(grant), nil},
		{"member JWT", bearer(memberJWT), nil},
		{"member JWT with X-Workspace-Id", append(bearer(memberJWT), "X-Workspace-Id", a.ws.ID), nil},
		{"data:write key", bearer(e.key(a.ws.ID, nil, auth.ScopeDataRead, auth.ScopeDataWrite)), url},
		{"admin JWT", bearer(adminJWT), url},
		{"admin JWT with X-Workspace-Id", append(bearer(adminJWT), "X-Workspace-Id", a.ws.ID), url},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("GET", "/v3/projects/"+a.project.ID+"/connections", nil, c.headers...)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			for _, conn := range r.List(t) {
				want := c.want
				if conn["id"] != a.custom.ID {
					want = nil
				}
				if conn["webhook_url"] != want {
					t.Fatalf("connection %v: webhook_url %v, want %v", conn["id"], conn["webhook_url"], want)
				}
			}
			if c.want == nil && strings.Contains(string(r.Body), a.custom.WebhookKey) {
				t.Fatalf("the webhook key leaks: %s", r.Body)
			}
		})
	}
}

func TestSyncStatus(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierGrowth, "act_111")
	ctx := context.Background()
	path := "/v3/connections/" + a.alpha.ID + "/sync"

	t.Run("no runs yet", func(t *testing.T) {
		r := e.do("GET", path, nil, bearer(a.readKey)...)
		body := r.JSON(t)
		if r.Status != 200 || body["connection_id"] != a.alpha.ID || body["last_sync"] != nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if h, ok := body["history"].([]any); !ok || len(h) != 0 {
			t.Fatalf("history %v, want []", body["history"])
		}
		sch := body["schedule"].(map[string]any)
		if sch["tier"] != "growth" || sch["synced"] != true || sch["sync_interval_minutes"] != 10.0 || sch["remaining_seconds"] != 0.0 ||
			sch["next_sync_estimate"] != e.clock.Now().Format(time.RFC3339) {
			t.Fatalf("schedule %v", sch)
		}
	})

	now := e.clock.Now()
	runs := []struct {
		id, typ, status string
		start           time.Time
		rows            int64
	}{
		{"sync_1", "full", "success", now.Add(-3 * time.Hour), 900},
		{"sync_2", "incremental", "success", now.Add(-2 * time.Hour), 40},
		{"sync_3", "incremental", "error", now.Add(-4 * time.Minute), 0},
	}
	for _, r := range runs {
		done := r.start.Add(30 * time.Second)
		if _, err := e.store.Pool().Exec(ctx, `INSERT INTO sync_runs (id, connection_id, sync_type, status, started_at, completed_at, rows_synced)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, r.id, a.alpha.ID, r.typ, r.status, r.start, done, r.rows); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("history newest first, last successful sync, next run", func(t *testing.T) {
		for _, p := range []string{path, "/v3/connections/act_111/sync", "/v3/connections/111/sync"} {
			body := e.do("GET", p, nil, bearer(a.readKey)...).JSON(t)
			hist := body["history"].([]any)
			if len(hist) != 3 || hist[0].(map[string]any)["id"] != "sync_3" || hist[2].(map[string]any)["id"] != "sync_1" {
				t.Fatalf("%s: history %v", p, hist)
			}
			h0 := hist[0].(map[string]any)
			for _, k := range []string{"id", "sync_type", "status", "started_at", "completed_at"} {
				if _, ok := h0[k]; !ok {
					t.Fatalf("history item lacks %q: %v", k, h0)
				}
			}
			last := body["last_sync"].(map[string]any)
			if last["rows_synced"] != 40.0 || last["sync_type"] != "incremental" ||
				last["completed_at"] != runs[1].start.Add(30*time.Second).Format(time.RFC3339) {
				t.Fatalf("last_sync %v", last)
			}
			sch := body["schedule"].(map[string]any)
			if sch["remaining_seconds"] != 360.0 || sch["next_sync_estimate"] != now.Add(6*time.Minute).Format(time.RFC3339) {
				t.Fatalf("schedule %v", sch)
			}
		}
	})

	t.Run("paused connection has no next run", func(t *testing.T) {
		if _, err := e.store.Pool().Exec(ctx, "UPDATE connections SET status = 'paused' WHERE id = $1", a.alpha.ID); err != nil {
			t.Fatal(err)
		}
		body := e.do("GET", path, nil, bearer(a.readKey)...).JSON(t)
		sch := body["schedule"].(map[string]any)
		if body["status"] != "paused" || sch["synced"] != false || sch["next_sync_estimate"] != nil || sch["remaining_seconds"] != 0.0 {
			t.Fatalf("paused: %v", body)
		}
	})

	t.Run("a custom connection is never synced", func(t *testing.T) {
		body := e.do("GET", "/v3/connections/"+a.custom.ID+"/sync", nil, bearer(a.readKey)...).JSON(t)
		sch := body["schedule"].(map[string]any)
		if body["status"] != "active" || sch["synced"] != false || sch["next_sync_estimate"] != nil || sch["remaining_seconds"] != 0.0 {
			t.Fatalf("custom: %v", body)
		}
	})
}
