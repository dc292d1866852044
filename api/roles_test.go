package api_test

import (
	"context"
	"testing"

	"mtk/platform"
)

// TestMemberReadsOnly: a workspace member's JWT reads data and tracking; every write route
// (events with a JWT, triggers, links, objects) answers it 403 insufficient_scope, with a body
// that an owner's or admin's JWT has written (CONTRACT "Hostile input, second pass").
func TestMemberReadsOnly(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	ctx := context.Background()
	member, err := e.store.Users.CreateUser(ctx, "member@example.com", "Member", "password-member", a.ws.ID, platform.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	owner, err := e.store.Users.CreateUser(ctx, "owner@example.com", "Owner", "password-owner", a.ws.ID, platform.RoleOwner)
	if err != nil {
		t.Fatal(err)
	}
	in := func(jwt string) []string { return append(bearer(jwt), "X-Workspace-Id", a.ws.ID) }
	asMember := in(e.login(tenant{user: member, password: "password-member"}))
	asAdmin := in(e.login(a.tenant))
	asOwner := in(e.login(tenant{user: owner, password: "password-owner"}))
	trigger := e.platformTrigger(a.v3.ID, "api", "Checkout", "Purchase")
	triggers := "/v3/tracking/containers/" + a.v3.ID + "/triggers"
	event := map[string]any{"domain": "acme.example", "config": map[string]any{"name": "purchase"}, "lead": map[string]any{"email": "x@example.com"}}
	link := map[string]any{"name": "Promo", "phone": "+55 11 91234-5678", "message": "Hi"}

	t.Run("reads", func(t *testing.T) {
		for _, r := range []struct{ method, path, body string }{
			{"GET", "/v3/projects", ""},
			{"GET", "/v3/tracking/containers/" + a.v3.ID, ""},
			{"GET", triggers, ""},
			{"POST", "/v3/query", `{"project_id":"` + a.project.ID + `","fields":["spend"],"time":{"range":"last_7_days"}}`},
			{"POST", "/v3/tracking/messages/decode", `{"messages":[{"text":"hello"}]}`},
		} {
			if got := e.do(r.method, r.path, bodyOrNil(r.body), asMember...); got.Status != 200 {
				t.Fatalf("%s %s: %d %s", r.method, r.path, got.Status, got.Body)
			}
		}
	})
	writes := []struct {
		name, method, path string
		body               any
	}{
		{"create a trigger", "POST", triggers, apiTrigger("Lead API", "Lead", false)},
		{"update a trigger", "PUT", triggers + "/" + trigger.ID, apiTrigger("Checkout API", "Purchase", false)},
		{"delete a trigger", "DELETE", triggers + "/" + trigger.ID, nil},
		{"create a link", "POST", "/v3/tracking/links", link},
		{"send an event", "POST", "/v3/tracking/events", event},
		{"send an event to a container", "POST", "/v3/tracking/containers/" + a.v3.ID + "/events", event},
		{"update objects", "PUT", "/v3/connections/" + a.alpha.ID + "/objects", `{"type":"campaign","updates":[{"id":"1","status":"PAUSED"}]}`},
	}
	for _, w := range writes {
		t.Run("member may not "+w.name, func(t *testing.T) {
			wantError(t, e.do(w.method, w.path, w.body, asMember...), 403, "authorization_error", "insufficient_scope")
		})
	}
	t.Run("owners and admins write", func(t *testing.T) {
		for i, w := range writes[:6] { // objects would reach the ad network: its route is the same rule
			headers := asAdmin
			if i%2 == 1 {
				headers = asOwner
			}
			if r := e.do(w.method, w.path, w.body, headers...); r.Status != 200 && r.Status != 201 {
				t.Fatalf("%s: %d %s", w.name, r.Status, r.Body)
			}
		}
	})
}
