package api_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// apiTrigger is a valid create body.
func apiTrigger(name, alpha string, custom bool) map[string]any {
	return map[string]any{"name": name, "config": map[string]any{
		"trigger": map[string]any{"type": "api"}, "name": strings.ToLower(name),
		"alpha": map[string]any{"name": alpha, "track_custom": custom},
	}}
}

func TestTriggerList(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	types := []string{"page_view", "form_submit", "page_view", "api", "element_click", "page_view", "whatsapp_keyword_message"}
	var ids []string
	for i, typ := range types {
		ids = append(ids, e.platformTrigger(a.v3.ID, typ, fmt.Sprintf("trigger %d", i), "Lead").ID)
		e.clock.Advance(time.Second)
	}
	base := "/v3/tracking/containers/" + *a.v3.TrackingCode + "/triggers"
	list := func(t *testing.T, query string) ([]string, map[string]any) {
		t.Helper()
		r := e.do("GET", base+query, nil, bearer(a.readOnly)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", query, r.Status, r.Body)
		}
		body := r.JSON(t)
		var got []string
		for _, d := range body["data"].([]any) {
			got = append(got, d.(map[string]any)["id"].(string))
		}
		return got, body["pagination"].(map[string]any)
	}

	t.Run("defaults and shape", func(t *testing.T) {
		got, pg := list(t, "")
		if fmt.Sprint(got) != fmt.Sprint(ids) {
			t.Fatalf("got %v, want %v oldest first", got, ids)
		}
		wantJSON(t, pg, `{"limit":50,"page":1,"total":7,"total_pages":1}`)
		r := e.do("GET", base+"?limit=1", nil, bearer(a.readOnly)...)
		first := r.JSON(t)["data"].([]any)[0].(map[string]any)
		wantJSON(t, first["config"], `{"alpha":{"name":"Lead","track_custom":false},"name":"lead","trigger":{"fire":"once_per_page","type":"page_view"}}`)
		if first["id"] != ids[0] || first["name"] != "trigger 0" || first["domain"] != "acme.example" ||
			first["created_at"] != e.clock.Now().Add(-7*time.Second).Format(time.RFC3339) {
			t.Fatalf("trigger %v", first)
		}
	})
	t.Run("pages and type filter", func(t *testing.T) {
		cases := []struct {
			query string
			want  []string
			page  string
		}{
			{"?limit=3", ids[0:3], `{"limit":3,"page":1,"total":7,"total_pages":3}`},
			{"?limit=3&page=3", ids[6:7], `{"limit":3,"page":3,"total":7,"total_pages":3}`},
			{"?limit=3&page=4", nil, `{"limit":3,"page":4,"total":7,"total_pages":3}`},
			{"?page=99999999999999", nil, `{"limit":50,"page":99999999999999,"total":7,"total_pages":1}`},
			{"?type=page_view", []string{ids[0], ids[2], ids[5]}, `{"limit":50,"page":1,"total":3,"total_pages":1}`},
			{"?type=page_view&limit=2&page=2", []string{ids[5]}, `{"limit":2,"page":2,"total":3,"total_pages":2}`},
			{"?type=scroll_depth", nil, `{"limit":50,"page":1,"total":0,"total_pages":0}`},
			{"?limit=100&page=1&unknown=x", ids, `{"limit":100,"page":1,"total":7,"total_pages":1}`},
		}
		for _, c := range cases {
			got, pg := list(t, c.query)
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("%s: got %v, want %v", c.query, got, c.want)
			}
			wantJSON(t, pg, c.page)
		}
		r := e.do("GET", base+"?type=scroll_depth", nil, bearer(a.readOnly)...)
		if !strings.Contains(string(r.Body), `"data":[]`) {
			t.Fatalf("empty page is not an empty array: %s", r.Body)
		}
	})
	t.Run("bad parameters", func(t *testing.T) {
		cases := []struct{ query, detail string }{
			{"?page=0", `page: "0"`},
			{"?page=-1", `page: "-1"`},
			{"?page=abc", `page: "abc"`},
			{"?page=", `page: ""`},
			{"?limit=0", `limit: "0"`},
			{"?limit=101", `limit: "101" is not an integer from 1 to 100`},
			{"?limit=1.5", `limit: "1.5"`},
			{"?type=nope", `type: "nope" is not a trigger type (api, page_view,`},
			{"?type=API", `type: "API"`},
		}
		for _, c := range cases {
			errObj := wantError(t, e.do("GET", base+c.query, nil, bearer(a.readOnly)...), 400, "validation_error", "invalid_parameter")
			details := fmt.Sprint(errObj["details"])
			if !strings.Contains(details, c.detail) {
				t.Fatalf("%s: details %s, want %q", c.query, details, c.detail)
			}
		}
		errObj := wantError(t, e.do("GET", base+"?page=0&limit=500&type=x", nil, bearer(a.readOnly)...), 400, "validation_error", "invalid_parameter")
		if len(errObj["details"].([]any)) != 3 {
			t.Fatalf("want one line per parameter: %v", errObj["details"])
		}
	})
	t.Run("another workspace's container", func(t *testing.T) {
		b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
		wantError(t, e.do("GET", "/v3/tracking/containers/"+a.v3.ID+"/triggers", nil, bearer(b.key)...), 404, "not_found_error", "resource_not_found")
	})
}

func TestTriggerCreate(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	base := "/v3/tracking/containers/" + a.v3.ID + "/triggers"

	t.Run("201 with the trigger, listed in the container", func(t *testing.T) {
		r := e.do("POST", "/v3/tracking/containers/acme.example/triggers", apiTrigger(" Checkout API ", "Purchase", false), bearer(a.key)...)
		if r.Status != 201 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		body := r.JSON(t)
		id, _ := body["id"].(string)
		if !strings.HasPrefix(id, "trg_") || body["name"] != "Checkout API" || body["domain"] != "acme.example" ||
			body["container_id"] != a.v2.ID || body["created_at"] != e.clock.Now().Format(time.RFC3339) {
			t.Fatalf("trigger %s", r.Body)
		}
		wantJSON(t, body["config"], `{"alpha":{"name":"Purchase","track_custom":false},"name":"checkout api","trigger":{"type":"api"}}`)
		ctr := e.do("GET", "/v3/tracking/containers/acme.example", nil, bearer(a.key)...).JSON(t)
		wantJSON(t, ctr["triggers"], `[{"alpha_event_name":"Purchase","id":"`+id+`","name":"Checkout API","trigger_type":"api"}]`)
	})
	t.Run("custom events", func(t *testing.T) {
		for _, name := range []string{"QualifiedLead", "Lead"} {
			if r := e.do("POST", base, apiTrigger("custom", name, true), bearer(a.key)...); r.Status != 201 {
				t.Fatalf("%s: %d %s", name, r.Status, r.Body)
			}
		}
	})
	cases := []struct {
		name    string
		body    any
		code    string
		details []string
	}{
		{"empty object", `{}`, "missing_parameter", []string{"name: required", "config.trigger.type: required", "config.name: required", "config.alpha.name: required"}},
		{"blank names", apiTrigger("  ", "Lead", false), "missing_parameter", []string{"name: required", "config.name: required"}},
		{"page_view type", map[string]any{"name": "x", "config": map[string]any{"trigger": map[string]any{"type": "page_view"}, "name": "x", "alpha": map[string]any{"name": "Lead"}}},
			"invalid_parameter", []string{"config.trigger.type: only api triggers can be created or updated with an API key"}},
		{"unknown type", map[string]any{"name": "x", "config": map[string]any{"trigger": map[string]any{"type": "magic"}, "name": "x", "alpha": map[string]any{"name": "Lead"}}},
			"invalid_parameter", []string{`config.trigger.type: "magic" is not a trigger type`}},
		{"not a standard event", apiTrigger("x", "QualifiedLead", false), "invalid_parameter", []string{`config.alpha.name: "QualifiedLead" is not a standard event (Purchase, Lead,`}},
		{"standard event in another case", apiTrigger("x", "purchase", false), "invalid_parameter", []string{`(did you mean "Purchase"?)`}},
		{"custom event too long", apiTrigger("x", strings.Repeat("E", 51), true), "invalid_parameter", []string{"config.alpha.name: a custom event name has at most 50 characters"}},
		{"names too long", apiTrigger(strings.Repeat("n", 256), "Lead", false), "invalid_parameter", []string{"name: at most 255 characters", "config.name: at most 100 characters"}},
		{"missing and invalid together", map[string]any{"config": map[string]any{"trigger": map[string]any{"type": "api"}, "name": "x", "alpha": map[string]any{"name": "Nope"}}},
			"invalid_parameter", []string{"name: required", `config.alpha.name: "Nope"`}},
		{"wrong JSON type", `{"name":"x","config":{"trigger":{"type":"api"},"name":"x","alpha":{"name":"Lead","track_custom":"yes"}}}`,
			"invalid_parameter", []string{"config.alpha.track_custom: expected a boolean"}},
		{"malformed JSON", `{"name":`, "invalid_parameter", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errObj := wantError(t, e.do("POST", base, c.body, bearer(a.key)...), 400, "validation_error", c.code)
			details := fmt.Sprint(errObj["details"])
			for _, d := range c.details {
				if !strings.Contains(details, d) {
					t.Fatalf("details %s lack %q", details, d)
				}
			}
			if c.details != nil && len(errObj["details"].([]any)) != len(c.details) {
				t.Fatalf("details %s, want %d lines", details, len(c.details))
			}
		})
	}
	t.Run("another workspace's container", func(t *testing.T) {
		for _, ref := range []string{a.v3.ID, *a.v3.TrackingCode, "acme.example"} {
			wantError(t, e.do("POST", "/v3/tracking/containers/"+ref+"/triggers", apiTrigger("x", "Lead", false), bearer(b.key)...),
				404, "not_found_error", "resource_not_found")
		}
	})
}

func TestTriggerUpdateAndDelete(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	base := "/v3/tracking/containers/" + a.v3.ID + "/triggers/"
	created := e.do("POST", "/v3/tracking/containers/"+a.v3.ID+"/triggers", apiTrigger("Lead API", "Lead", false), bearer(a.key)...).JSON(t)
	id := created["id"].(string)
	pageView := e.platformTrigger(a.v3.ID, "page_view", "Every page", "PageView")
	onV2 := e.do("POST", "/v3/tracking/containers/"+a.v2.ID+"/triggers", apiTrigger("On v2", "Lead", false), bearer(a.key)...).JSON(t)["id"].(string)

	t.Run("update replaces the members: 200 with the trigger", func(t *testing.T) {
		e.clock.Advance(time.Hour)
		r := e.do("PUT", base+id, apiTrigger("Qualified lead", "QualifiedLead", true), bearer(a.key)...)
		body := r.JSON(t)
		if r.Status != 200 || body["id"] != id || body["name"] != "Qualified lead" || body["created_at"] != created["created_at"] ||
			body["updated_at"] != e.clock.Now().Format(time.RFC3339) {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantJSON(t, body["config"], `{"alpha":{"name":"QualifiedLead","track_custom":true},"name":"qualified lead","trigger":{"type":"api"}}`)
		listed := e.do("GET", "/v3/tracking/containers/"+a.v3.ID+"/triggers?type=api", nil, bearer(a.key)...).JSON(t)["data"].([]any)
		if len(listed) != 1 || listed[0].(map[string]any)["name"] != "Qualified lead" {
			t.Fatalf("listed %v", listed)
		}
	})
	t.Run("update errors", func(t *testing.T) {
		errObj := wantError(t, e.do("PUT", base+pageView.ID, apiTrigger("x", "Lead", false), bearer(a.key)...), 400, "validation_error", "invalid_parameter")
		if !strings.Contains(fmt.Sprint(errObj["details"]), "is a page_view trigger") {
			t.Fatalf("details %v", errObj["details"])
		}
		wantError(t, e.do("PUT", base+id, apiTrigger("x", "Nope", false), bearer(a.key)...), 400, "validation_error", "invalid_parameter")
		pv := apiTrigger("x", "Lead", false)
		pv["config"].(map[string]any)["trigger"] = map[string]any{"type": "page_view"}
		wantError(t, e.do("PUT", base+id, pv, bearer(a.key)...), 400, "validation_error", "invalid_parameter")
		for _, path := range []string{base + "trg_nope", base + onV2, "/v3/tracking/containers/" + b.v3.ID + "/triggers/" + id} {
			key := a.key
			if strings.Contains(path, b.v3.ID) {
				key = b.key
			}
			errObj := wantError(t, e.do("PUT", path, apiTrigger("x", "Lead", false), bearer(key)...), 404, "not_found_error", "resource_not_found")
			if errObj["message"] != "Trigger not found" {
				t.Fatalf("%s: message %q", path, errObj["message"])
			}
		}
		wantError(t, e.do("PUT", "/v3/tracking/containers/"+a.v3.ID+"/triggers/"+id, apiTrigger("x", "Lead", false), bearer(b.key)...),
			404, "not_found_error", "resource_not_found")
	})
	t.Run("delete: 200 {success, id}, then Trigger not found", func(t *testing.T) {
		errObj := wantError(t, e.do("DELETE", base+pageView.ID, nil, bearer(a.key)...), 400, "validation_error", "invalid_parameter")
		if errObj["message"] != "Only api triggers can be deleted with an API key." {
			t.Fatalf("message %v", errObj["message"])
		}
		wantError(t, e.do("DELETE", "/v3/tracking/containers/"+a.v3.ID+"/triggers/"+id, nil, bearer(b.key)...), 404, "not_found_error", "resource_not_found")
		r := e.do("DELETE", base+id, nil, bearer(a.key)...)
		if r.Status != 200 || string(r.Body) != `{"id":"`+id+`","success":true}` {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		for _, tid := range []string{id, "trg_nope", onV2} {
			errObj := wantError(t, e.do("DELETE", base+tid, nil, bearer(a.key)...), 404, "not_found_error", "resource_not_found")
			if errObj["message"] != "Trigger not found" {
				t.Fatalf("message %q", errObj["message"])
			}
		}
		if left := e.do("GET", "/v3/tracking/containers/"+a.v3.ID, nil, bearer(a.key)...).JSON(t)["triggers"].([]any); len(left) != 1 {
			t.Fatalf("triggers left %v", left)
		}
	})
}

func TestTrackingIdempotency(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	path := "/v3/tracking/containers/" + a.v3.ID + "/triggers"
	body := `{"name":"Purchase API","config":{"trigger":{"type":"api"},"name":"purchase","alpha":{"name":"Purchase"}}}`
	count := func() int {
		var n int
		if err := e.store.Pool().QueryRow(context.Background(), "SELECT count(*) FROM triggers WHERE container_id = $1", a.v3.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	first := e.do("POST", path, body, append(bearer(a.key), "Idempotency-Key", "create-1")...)
	if first.Status != 201 || first.Header.Get("X-Idempotent-Replayed") != "" {
		t.Fatalf("first call: %d %v %s", first.Status, first.Header, first.Body)
	}
	e.clock.Advance(time.Hour)
	again := e.do("POST", path, body, append(bearer(a.key), "Idempotency-Key", "create-1")...)
	if again.Status != 201 || again.Header.Get("X-Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
		t.Fatalf("replay: %d %v %s", again.Status, again.Header, again.Body)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d triggers after a replay, want 1", n)
	}
	changed := strings.Replace(body, "Purchase API", "Other", 1)
	wantError(t, e.do("POST", path, changed, append(bearer(a.key), "Idempotency-Key", "create-1")...), 409, "conflict_error", "idempotency_conflict")
	// The key belongs to the API key: another key of the workspace may use the same value.
	other := e.key(a.ws.ID, nil, "tracking:write")
	if r := e.do("POST", path, changed, append(bearer(other), "Idempotency-Key", "create-1")...); r.Status != 201 || r.Header.Get("X-Idempotent-Replayed") != "" {
		t.Fatalf("other key: %d %s", r.Status, r.Body)
	}

	// Every write route takes the header: update, delete, links and decode replay too.
	id := first.JSON(t)["id"].(string)
	writes := []struct{ method, path, body string }{
		{"PUT", path + "/" + id, strings.Replace(body, "Purchase API", "Renamed", 1)},
		{"POST", "/v3/tracking/links", `{"name":"promo","phone":"+55 11 91234-5678","message":"Hi!"}`},
		{"POST", "/v3/tracking/messages/decode", `{"messages":[{"text":"hello"}]}`},
		{"DELETE", path + "/" + id, ""},
	}
	for i, w := range writes {
		key := fmt.Sprintf("write-%d", i)
		var b any
		if w.body != "" {
			b = w.body
		}
		r1 := e.do(w.method, w.path, b, append(bearer(a.key), "Idempotency-Key", key)...)
		r2 := e.do(w.method, w.path, b, append(bearer(a.key), "Idempotency-Key", key)...)
		if r1.Status >= 300 || r2.Status != r1.Status || string(r2.Body) != string(r1.Body) || r2.Header.Get("X-Idempotent-Replayed") != "true" {
			t.Fatalf("%s %s: %d %s then %d %v %s", w.method, w.path, r1.Status, r1.Body, r2.Status, r2.Header, r2.Body)
		}
	}
}
