package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"mtk/internal/auth"
	"mtk/platform"
)

// trackingTenant is a tenant with a tracking key and a v2 and a v3 container on its domain.
type trackingTenant struct {
	tenant
	key      string // tracking:read, tracking:write
	readOnly string // tracking:read
	v2, v3   platform.Container
}

func (e *env) newTrackingTenant(name, account, domain string) trackingTenant {
	e.t.Helper()
	ctx := context.Background()
	tt := trackingTenant{tenant: e.newTenant(name, platform.TierDefault, account)}
	tt.key = e.key(tt.ws.ID, nil, auth.ScopeTrackingRead, auth.ScopeTrackingWrite)
	tt.readOnly = tt.trackKey
	var err error
	if tt.v2, err = e.store.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: tt.project.ID, Domain: domain, Version: "2", Alias: "Legacy " + name}); err != nil {
		e.t.Fatal(err)
	}
	if tt.v3, err = e.store.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: tt.project.ID, Domain: domain}); err != nil {
		e.t.Fatal(err)
	}
	return tt
}

// ruleMembers are the members that each type needs beyond its type, for platformTrigger.
var ruleMembers = map[string]platform.TriggerRule{
	"element_click":            {Selector: "#buy"},
	"whatsapp_keyword_message": {Keyword: "quero comprar"},
}

// platformTrigger adds a trigger of any type, as the platform interface does.
func (e *env) platformTrigger(containerID, typ, name, alpha string) platform.Trigger {
	e.t.Helper()
	rule := ruleMembers[typ]
	rule.Type = typ
	tr, err := e.store.Containers.AddPlatformTrigger(context.Background(), containerID, platform.TriggerInput{
		Name: name, Config: platform.TriggerConfig{Trigger: rule, Name: strings.ToLower(alpha), Alpha: platform.AlphaEvent{Name: alpha}},
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return tr
}

func TestGetContainer(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	ctx := context.Background()
	if err := e.store.Containers.VerifyContainerDomain(ctx, a.v3.ID, "acme.example"); err != nil {
		t.Fatal(err)
	}
	if err := e.store.Containers.LinkPixel(ctx, a.v3.ID, platform.LinkedPixel{Source: "alpha_ads", ID: "987", Name: "Acme pixel"}); err != nil {
		t.Fatal(err)
	}
	tr := e.platformTrigger(a.v3.ID, "page_view", "Every page", "PageView")

	t.Run("shape", func(t *testing.T) {
		r := e.do("GET", "/v3/tracking/containers/"+a.v3.ID, nil, bearer(a.key)...)
		body := r.JSON(t)
		if r.Status != 200 || body["id"] != a.v3.ID || body["domain"] != "acme.example" || body["alias"] != "acme.example" ||
			body["version"] != "3.0" || body["status"] != "pending_receive_events" || body["tracking_code"] != *a.v3.TrackingCode ||
			body["project_id"] != a.project.ID || body["workspace_id"] != a.ws.ID {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantJSON(t, body["verified_domains"], `[{"domain":"acme.example","status":"verified"}]`)
		wantJSON(t, body["linked_pixels"], `[{"id":"987","name":"Acme pixel","source":"alpha_ads"}]`)
		wantJSON(t, body["triggers"], `[{"alpha_event_name":"PageView","id":"`+tr.ID+`","name":"Every page","trigger_type":"page_view"}]`)
		wantJSON(t, body["metadata"], `{"allowed_hosts":["acme.example"],"has_funnel_steps":false,"lead_key":"_mtk_lead","require_consent":false}`)
	})
	t.Run("addressed by id, v3 tracking code and v2 domain", func(t *testing.T) {
		code := *a.v3.TrackingCode
		for ref, want := range map[string]string{
			a.v3.ID: a.v3.ID, code: a.v3.ID, strings.ToLower(code): a.v3.ID,
			a.v2.ID: a.v2.ID, "acme.example": a.v2.ID, "ACME.example": a.v2.ID,
		} {
			r := e.do("GET", "/v3/tracking/containers/"+ref, nil, bearer(a.key)...)
			if got := r.JSON(t)["id"]; r.Status != 200 || got != want {
				t.Fatalf("%s: %d %s, want %s", ref, r.Status, r.Body, want)
			}
		}
		legacy := e.do("GET", "/v3/tracking/containers/acme.example", nil, bearer(a.key)...).JSON(t)
		if legacy["version"] != "2.0" || legacy["tracking_code"] != nil || legacy["alias"] != "Legacy acme" || legacy["status"] != "pending" {
			t.Fatalf("v2 container %v", legacy)
		}
	})
	t.Run("JWT with X-Workspace-Id", func(t *testing.T) {
		jwt := e.login(a.tenant)
		if r := e.do("GET", "/v3/tracking/containers/"+a.v3.ID, nil, append(bearer(jwt), "X-Workspace-Id", a.ws.ID)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantError(t, e.do("GET", "/v3/tracking/containers/"+a.v3.ID, nil, bearer(jwt)...), 400, "validation_error", "missing_parameter")
	})
	t.Run("not found", func(t *testing.T) {
		if err := e.store.Containers.DeleteContainer(ctx, b.v2.ID); err != nil {
			t.Fatal(err)
		}
		for _, ref := range []string{
			"ctr_nope", "MTK-000000", "nope.example",
			b.v3.ID, *b.v3.TrackingCode, "bolt.example", // another workspace's
			*a.v3.TrackingCode + "X", // not a code, so a domain
		} {
			wantError(t, e.do("GET", "/v3/tracking/containers/"+ref, nil, bearer(a.key)...), 404, "not_found_error", "resource_not_found")
		}
		// A deleted container is gone, even for its own workspace; a v3 container has no domain address.
		wantError(t, e.do("GET", "/v3/tracking/containers/"+b.v2.ID, nil, bearer(b.key)...), 404, "not_found_error", "resource_not_found")
		wantError(t, e.do("GET", "/v3/tracking/containers/bolt.example", nil, bearer(b.key)...), 404, "not_found_error", "resource_not_found")
	})
}

// TestTrackingAuth pins 401 and 403 on every tracking route.
func TestTrackingAuth(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	ctr := "/v3/tracking/containers/" + a.v3.ID
	routes := []struct {
		method, path, scope string
	}{
		{"GET", ctr, "tracking:read"},
		{"GET", ctr + "/triggers", "tracking:read"},
		{"POST", ctr + "/triggers", "tracking:write"},
		{"PUT", ctr + "/triggers/trg_x", "tracking:write"},
		{"DELETE", ctr + "/triggers/trg_x", "tracking:write"},
		{"POST", "/v3/tracking/links", "tracking:write"},
		{"POST", "/v3/tracking/messages/decode", "tracking:read"},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			wantError(t, e.do(r.method, r.path, "{}"), 401, "authentication_error", "invalid_api_key")
			wantError(t, e.do(r.method, r.path, "{}", bearer("mtk_live_"+strings.Repeat("A", 43))...), 401, "authentication_error", "invalid_api_key")
			lacking := a.readKey // data:read only
			if r.scope == "tracking:write" {
				lacking = a.readOnly
			}
			errObj := wantError(t, e.do(r.method, r.path, "{}", bearer(lacking)...), 403, "authorization_error", "insufficient_scope")
			if !strings.Contains(errObj["message"].(string), r.scope) {
				t.Fatalf("message does not name %s: %v", r.scope, errObj["message"])
			}
		})
	}
}

// wantJSON compares a decoded value with want, written as JSON with sorted keys.
func wantJSON(t *testing.T, got any, want string) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != want {
		t.Fatalf("got %s\nwant %s", b, want)
	}
}
