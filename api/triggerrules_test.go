package api_test

import (
	"context"
	"fmt"

	"strings"
	"testing"

	"mtk/platform"
)

// rulesTrigger is a trigger body with config.trigger set to rule.
func rulesTrigger(rule map[string]any) map[string]any {
	return map[string]any{"name": "rule", "config": map[string]any{"trigger": rule, "name": "rule", "alpha": map[string]any{"name": "Lead"}}}
}

// TestTriggerRulesByCaller: an owner's or admin's JWT makes, replaces and deletes triggers of
// every type through the API's routes, each type's members checked; an API key and a member's
// JWT stay api-only.
func TestTriggerRulesByCaller(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	admin := append(bearer(e.login(a.tenant)), "X-Workspace-Id", a.ws.ID)
	base := "/v3/tracking/containers/" + *a.v3.TrackingCode + "/triggers"

	made := map[string]string{}
	for _, rule := range []map[string]any{
		{"type": "page_view", "conditions": []map[string]string{{"variable": "page_path", "operator": "startsWith", "value": "/shop"}}},
		{"type": "page_view_duration", "seconds": 30},
		{"type": "element_click", "selector": "#buy", "fire": "every_time"},
		{"type": "element_view", "selector": ".banner"},
		{"type": "element_hover", "selector": ".card"},
		{"type": "form_submit"},
		{"type": "scroll_depth", "percent": 75, "fire": "once_per_session"},
		{"type": "video_view_duration", "seconds": 10},
		{"type": "whatsapp_keyword_message", "keyword": "Quero comprar"},
		{"type": "click_tracking_link"},
		{"type": "checkout_transaction_approved"},
		{"type": "api"},
		{"type": "page_view", "conditions": []map[string]string{{"variable": "utm_source", "operator": "matches", "value": "(?i)^face"}}},
	} {
		r := e.do("POST", base, rulesTrigger(rule), admin...)
		if r.Status != 201 {
			t.Fatalf("%v: %d %s", rule, r.Status, r.Body)
		}
		made[rule["type"].(string)] = r.JSON(t)["id"].(string)
	}
	// The defaults are filled and kept.
	page := e.do("GET", base+"?type=element_view", nil, admin...).JSON(t)
	wantJSON(t, page["data"].([]any)[0].(map[string]any)["config"].(map[string]any)["trigger"],
		`{"fire":"once_per_page","percent":50,"selector":".banner","type":"element_view"}`)
	video := e.do("GET", base+"?type=video_view_duration", nil, admin...).JSON(t)
	wantJSON(t, video["data"].([]any)[0].(map[string]any)["config"].(map[string]any)["trigger"],
		`{"fire":"once_per_page","seconds":10,"selector":"video","type":"video_view_duration"}`)

	t.Run("each type's members are checked", func(t *testing.T) {
		for _, c := range []struct {
			rule   map[string]any
			detail string
		}{
			{map[string]any{"type": "element_click"}, "config.trigger.selector: required"},
			{map[string]any{"type": "scroll_depth", "percent": 120}, "config.trigger.percent: an integer from 1 to 100"},
			{map[string]any{"type": "page_view", "selector": "#x"}, "config.trigger.selector: a page_view trigger takes no selector"},
			{map[string]any{"type": "page_view", "fire": "twice"}, `config.trigger.fire: "twice" is not one of`},
			{map[string]any{"type": "page_view", "conditions": []map[string]string{{"variable": "page_path", "operator": "matches", "value": "(["}}},
				"config.trigger.conditions[0].value: not a regular expression (RE2 syntax)"},
			{map[string]any{"type": "page_view", "conditions": []map[string]string{{"variable": "cookie", "operator": "like", "value": ""}}},
				`config.trigger.conditions[0].variable: "cookie" is not one of`},
			{map[string]any{"type": "page_view", "conditions": []map[string]string{{"variable": "page_url", "operator": "matches", "value": `\Ashop`}}},
				`config.trigger.conditions[0].value: \A is RE2 syntax that browsers read otherwise`},
			{map[string]any{"type": "checkout_transaction_approved", "fire": "every_time"}, "config.trigger.fire: a checkout_transaction_approved trigger fires once per occurrence"},
			{map[string]any{"type": "whatsapp_keyword_message"}, "config.trigger.keyword: required"},
			{map[string]any{"type": "video_view_duration", "seconds": -1}, "config.trigger.seconds: from more than 0"},
		} {
			r := e.do("POST", base, rulesTrigger(c.rule), admin...)
			errObj, _ := r.JSON(t)["error"].(map[string]any)
			if details := fmt.Sprint(errObj["details"]); r.Status != 400 || !strings.Contains(details, c.detail) {
				t.Errorf("%v: %d %s, want 400 naming %q", c.rule, r.Status, details, c.detail)
			}
		}
	})
	t.Run("an API key and a member stay api-only", func(t *testing.T) {
		if _, err := e.store.Users.CreateUser(context.Background(), "member@acme.example", "Member", "member-password-1", a.ws.ID, platform.RoleMember); err != nil {
			t.Fatal(err)
		}
		r := e.do("POST", "/v3/auth/login", map[string]string{"email": "member@acme.example", "password": "member-password-1"})
		member := append(bearer(r.JSON(t)["token"].(string)), "X-Workspace-Id", a.ws.ID)
		for name, cred := range map[string][]string{"key": bearer(a.key), "member": member} {
			r := e.do("POST", base, rulesTrigger(map[string]any{"type": "element_click", "selector": "#buy"}), cred...)
			// A member's writes may be refused outright (403) by role; never made.
			if r.Status != 400 && r.Status != 403 {
				t.Errorf("%s: %d %s, want 400 or 403", name, r.Status, r.Body)
			}
			r = e.do("DELETE", base+"/"+made["element_click"], nil, cred...)
			if r.Status != 400 && r.Status != 403 {
				t.Errorf("%s delete: %d %s", name, r.Status, r.Body)
			}
		}
	})
	t.Run("an admin replaces a trigger's type and deletes it", func(t *testing.T) {
		id := made["form_submit"]
		r := e.do("PUT", base+"/"+id, rulesTrigger(map[string]any{"type": "scroll_depth", "percent": 50}), admin...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantJSON(t, r.JSON(t)["config"].(map[string]any)["trigger"], `{"fire":"once_per_page","percent":50,"type":"scroll_depth"}`)
		if r := e.do("DELETE", base+"/"+id, nil, admin...); r.Status != 200 {
			t.Fatalf("delete: %d %s", r.Status, r.Body)
		}
		if r := e.do("DELETE", base+"/"+id, nil, admin...); r.Status != 404 {
			t.Fatalf("delete again: %d %s", r.Status, r.Body)
		}
	})
}
