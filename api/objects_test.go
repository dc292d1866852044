package api_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/facts"
	"mtk/internal/adsim"
	"mtk/internal/auth"
	"mtk/platform"
)

// objectsWorld is a tenant whose alpha and gamma connections point at an in-process simulator
// and have been synced once.
type objectsWorld struct {
	sim          *adsim.Sim
	syncer       *adsync.Syncer
	alpha, gamma platform.Connection
	writeKey     string
	readKey      string
	tn           tenant
}

func newObjectsWorld(t *testing.T, e *env) objectsWorld {
	sim, err := adsim.New(adsim.Config{Seed: 5, Clock: e.clock, Days: 10, AccountsPerNetwork: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	ow := objectsWorld{sim: sim, tn: e.newTenant("objects", platform.TierGrowth, "act_1")}
	ow.syncer = &adsync.Syncer{Store: adsync.NewStore(e.store.Pool()), ClickHouse: e.ch,
		Connectors: networks.Factory{}.Connector, Clock: e.clock, Projects: e.store.Projects, Connections: e.store.Connections}
	ctx := context.Background()
	for _, a := range sim.Accounts() {
		if a.Network == adsim.Beta {
			continue
		}
		c, err := e.store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: ow.tn.project.ID, Kind: string(a.Network),
			Name: a.Name, SourceID: a.ID, APIBaseURL: networks.APIRoot(string(a.Network), srv.URL), AccessToken: a.AccessToken})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ow.syncer.Run(ctx, c, adsync.Options{}); err != nil {
			t.Fatal(err)
		}
		if a.Network == adsim.Alpha {
			ow.alpha = c
		} else {
			ow.gamma = c
		}
	}
	ow.writeKey = e.key(ow.tn.ws.ID, nil, auth.ScopeDataWrite)
	ow.readKey = ow.tn.readKey
	return ow
}

// object finds a simulated object of a network by level, and a budget holder when asked.
func (ow objectsWorld) object(t *testing.T, n adsim.Network, level adsim.Level, withBudget bool) adsim.ObjectInfo {
	t.Helper()
	for _, a := range ow.sim.Accounts() {
		if a.Network != n {
			continue
		}
		objs, _ := ow.sim.Objects(n, a.ID)
		for _, o := range objs {
			if o.Level == level && o.Status == adsim.Active && (!withBudget || o.BudgetKind != "") {
				return o
			}
		}
	}
	t.Fatalf("no %s %s", n, level)
	return adsim.ObjectInfo{}
}

func TestObjectsValidation(t *testing.T) {
	e := newEnv(t)
	ow := newObjectsWorld(t, e)
	path := "/v3/connections/" + ow.alpha.ID + "/objects"
	for _, c := range []struct {
		name string
		body string
		want []string
	}{
		{"every item rule", `{"type":"campaign","updates":[{"id":"1","status":"PAUSED","budget":100},{"id":"2"},
			{"id":"3","budget":-5},{"id":"4","budget":1.5},{"id":"5","budget":"100"},{"id":"6","status":"STOPPED"},{"status":"ACTIVE"}]}`,
			[]string{"updates[0]: has both", "updates[1]: has neither", "updates[2].budget", "updates[3].budget", "updates[4].budget",
				"updates[5].status", "updates[6].id: required"}},
		{"budget on an ad", `{"type":"ad","updates":[{"id":"1","status":"PAUSED"},{"id":"2","budget":100}]}`,
			[]string{"updates[1].budget: an ad has no budget"}},
		{"unknown type", `{"type":"keyword","updates":[{"id":"1","status":"PAUSED"}]}`, []string{"type: \"keyword\""}},
		{"no updates", `{"type":"ad","updates":[]}`, []string{"updates: at least one"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("PUT", path, c.body, bearer(ow.writeKey)...)
			errObj := wantError(t, r, 400, "validation_error", "invalid_parameter")
			details, _ := errObj["details"].([]any)
			if len(details) != len(c.want) {
				t.Fatalf("details %v, want %d lines", details, len(c.want))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(details[i].(string), w) {
					t.Fatalf("details[%d] = %q, want %q…", i, details[i], w)
				}
			}
		})
	}
	// Nothing was sent for a refused body.
	if changes, _ := adsync.NewStore(e.store.Pool()).Changes(context.Background(), ow.alpha.ID); len(changes) != 0 {
		t.Fatalf("a refused body left %d audit lines", len(changes))
	}
}

func TestObjectsUpdate(t *testing.T) {
	e := newEnv(t)
	ow := newObjectsWorld(t, e)
	ctx := context.Background()
	camp := ow.object(t, adsim.Alpha, adsim.LevelCampaign, false)
	budgeted := ow.object(t, adsim.Alpha, adsim.LevelAdSet, true)
	foreign := ow.object(t, adsim.Gamma, adsim.LevelAdSet, false)
	digits := strings.TrimPrefix(*ow.alpha.SourceID, "act_")

	t.Run("pause, budget and another connection's object, by act_ path", func(t *testing.T) {
		body := map[string]any{"type": "adset", "updates": []map[string]any{
			{"id": budgeted.ID, "budget": 12345}, {"id": foreign.ID, "status": "PAUSED"}, {"id": camp.ID, "status": "PAUSED"},
		}}
		r := e.do("PUT", "/v3/connections/act_"+digits+"/objects", body, bearer(ow.writeKey)...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		m := r.JSON(t)
		res := m["results"].([]any)
		sum := m["summary"].(map[string]any)
		if m["success"] != false || sum["updated"] != 1.0 || sum["failed"] != 2.0 || len(res) != 3 {
			t.Fatalf("answer %s", r.Body)
		}
		if first := res[0].(map[string]any); first["id"] != budgeted.ID || first["ok"] != true || first["error"] != nil {
			t.Fatalf("budget item %v", first)
		}
		for _, i := range []int{1, 2} {
			if it := res[i].(map[string]any); it["ok"] != false || it["error"] == "" {
				t.Fatalf("item %d should fail: %v", i, it)
			}
		}
		objs, _ := ow.sim.Objects(adsim.Alpha, *ow.alpha.SourceID)
		for _, o := range objs {
			if o.ID == budgeted.ID && o.Budget != 12345 {
				t.Fatalf("network budget %d", o.Budget)
			}
		}
	})
	t.Run("pause a campaign with the bare digits; the next sync sees it", func(t *testing.T) {
		pausedAt := e.clock.Now()
		r := e.do("PUT", "/v3/connections/"+digits+"/objects", map[string]any{"type": "campaign",
			"updates": []map[string]any{{"id": camp.ID, "status": "PAUSED"}}}, bearer(ow.writeKey)...)
		if r.Status != 200 || r.JSON(t)["success"] != true {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		stored, _ := adsync.NewStore(e.store.Pool()).Objects(ctx, ow.alpha.ID)
		if stored[camp.ID].Status != adsync.StatusPaused || stored[budgeted.ID].BudgetMicros != 12345*facts.MicrosPerMinor {
			t.Fatalf("stored objects did not follow: %+v %+v", stored[camp.ID], stored[budgeted.ID])
		}
		e.clock.Advance(2 * time.Hour)
		c, _ := e.store.Connections.ConnectionIn(ctx, []string{ow.tn.ws.ID}, ow.alpha.ID)
		if _, err := ow.syncer.Run(ctx, c, adsync.Options{}); err != nil {
			t.Fatal(err)
		}
		var spendAfter, spendOthers int64
		if err := e.ch.QueryRow(ctx, "SELECT sumIf(spend, campaign_id = ?), sumIf(spend, campaign_id != ?) FROM facts_raw "+
			"WHERE connection_id = ? AND ts > ?", camp.ID, camp.ID, ow.alpha.ID, pausedAt.Add(time.Minute)).Scan(&spendAfter, &spendOthers); err != nil {
			t.Fatal(err)
		}
		if spendAfter != 0 || spendOthers == 0 {
			t.Fatalf("after the pause: paused campaign spent %d, the others %d", spendAfter, spendOthers)
		}
		changes, _ := adsync.NewStore(e.store.Pool()).Changes(ctx, ow.alpha.ID)
		last := changes[len(changes)-1]
		if last.ObjectID != camp.ID || last.Before != "ACTIVE" || last.After != "PAUSED" || !last.OK || last.ActorKind != "api_key" || last.ActorID == "" {
			t.Fatalf("audit %+v", last)
		}
	})
	t.Run("idempotent replay", func(t *testing.T) {
		body := map[string]any{"type": "campaign", "updates": []map[string]any{{"id": camp.ID, "status": "ACTIVE"}}}
		h := append(bearer(ow.writeKey), "Idempotency-Key", "obj-1")
		first := e.do("PUT", "/v3/connections/"+ow.alpha.ID+"/objects", body, h...)
		again := e.do("PUT", "/v3/connections/"+ow.alpha.ID+"/objects", body, h...)
		if first.Status != 200 || again.Status != 200 || string(first.Body) != string(again.Body) || again.Header.Get("X-Idempotent-Replayed") != "true" {
			t.Fatalf("first %d %s; again %d %s %v", first.Status, first.Body, again.Status, again.Body, again.Header)
		}
		changes, _ := adsync.NewStore(e.store.Pool()).Changes(ctx, ow.alpha.ID)
		if n := len(changes); changes[n-1].After != "ACTIVE" || changes[n-2].After != "PAUSED" {
			t.Fatalf("the replay was applied again: %+v", changes[n-2:])
		}
	})
	t.Run("scope and workspace", func(t *testing.T) {
		body := `{"type":"campaign","updates":[{"id":"1","status":"PAUSED"}]}`
		wantError(t, e.do("PUT", "/v3/connections/"+ow.alpha.ID+"/objects", body, bearer(ow.readKey)...), 403, "authorization_error", "insufficient_scope")
		jwt := e.login(ow.tn)
		wantError(t, e.do("PUT", "/v3/connections/"+ow.alpha.ID+"/objects", body, bearer(jwt)...), 400, "validation_error", "missing_parameter")
		other := e.newTenant("other", platform.TierDefault, "act_2")
		otherKey := e.key(other.ws.ID, nil, auth.ScopeDataWrite)
		wantError(t, e.do("PUT", "/v3/connections/"+ow.alpha.ID+"/objects", body, bearer(otherKey)...), 404, "not_found_error", "resource_not_found")
	})
}

// An ad network connection created without its API base URL (or access token) cannot be written
// to: 400 naming connection_id, never a 500, and nothing is recorded.
func TestObjectsOnConnectionWithoutAPI(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierDefault, "act_111")
	key := e.key(a.ws.ID, nil, auth.ScopeDataWrite)
	body := `{"type":"campaign","updates":[{"id":"1","status":"PAUSED"}]}`
	r := e.do("PUT", "/v3/connections/"+a.alpha.ID+"/objects", body, bearer(key)...)
	errObj := wantError(t, r, 400, "validation_error", "invalid_parameter")
	details, _ := errObj["details"].([]any)
	if len(details) != 1 || !strings.HasPrefix(details[0].(string), "connection_id: ") ||
		!strings.Contains(errObj["message"].(string), "API base URL") {
		t.Fatalf("error %v", errObj)
	}
	if changes, _ := adsync.NewStore(e.store.Pool()).Changes(context.Background(), a.alpha.ID); len(changes) != 0 {
		t.Fatalf("%d audit lines for a refused call", len(changes))
	}
}
