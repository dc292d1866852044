package api_test

import (
	"testing"
	"time"

	"mtk/tag"
)

// The Tags view's routes: the workspace's containers with their install line, and each
// trigger's last firing and 24-hour count from the stored events of its container and name.
func TestContainerListAndTriggerStats(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	list := e.do("GET", "/v3/tracking/containers?project_id="+a.project.ID, nil, bearer(a.readOnly)...)
	if list.Status != 200 {
		t.Fatalf("%d %s", list.Status, list.Body)
	}
	items := list.JSON(t)["data"].([]any)
	id := func(i int) any { return items[i].(map[string]any)["container"].(map[string]any)["id"] }
	if len(items) != 2 || id(0) != a.v3.ID || id(1) != a.v2.ID ||
		items[0].(map[string]any)["install_line"] != tag.InstallLine(e.sys.Config.BaseURL, *a.v3.TrackingCode) {
		t.Fatalf("containers %v", items)
	}
	if other := e.do("GET", "/v3/tracking/containers?project_id="+b.project.ID, nil, bearer(a.readOnly)...).JSON(t)["data"].([]any); len(other) != 0 {
		t.Fatalf("another workspace's containers: %v", other)
	}

	views := e.platformTrigger(a.v3.ID, "page_view", "Every page", "PageView")
	signups := e.platformTrigger(a.v3.ID, "form_submit", "Sign-ups", "Lead")
	now := e.clock.Now()
	for i, at := range []time.Time{now.Add(-30 * time.Hour), now.Add(-2 * time.Hour), now.Add(-time.Minute)} {
		r := e.event(map[string]any{"event_id": "pv-" + string(rune('a'+i)), "timestamp": at.Unix(), "source": "website",
			"config": map[string]any{"name": views.Config.Name}}, bearer(a.key)...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	// The same name in another container counts for that container only.
	e.event(map[string]any{"event_id": "pv-other", "config": map[string]any{"name": views.Config.Name}}, bearer(b.key)...)
	e.drain()
	r := e.do("GET", "/v3/tracking/containers/"+*a.v3.TrackingCode+"/trigger-stats", nil, bearer(a.readOnly)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	last := time.Unix(now.Add(-time.Minute).Unix(), 0).UTC().Format(time.RFC3339)
	got := map[any]any{}
	for _, s := range r.JSON(t)["data"].([]any) {
		got[s.(map[string]any)["trigger_id"]] = s
	}
	wantJSON(t, got[views.ID], `{"count_24h":2,"last_fired_at":"`+last+`","trigger_id":"`+views.ID+`"}`)
	wantJSON(t, got[signups.ID], `{"count_24h":0,"last_fired_at":null,"trigger_id":"`+signups.ID+`"}`)
	wantError(t, e.do("GET", "/v3/tracking/containers/"+b.v3.ID+"/trigger-stats", nil, bearer(a.readOnly)...), 404, "not_found_error", "resource_not_found")
}
