package api_test

import (
	"testing"

	"mtk/platform"
)

// TestRoutingIsExact: a path answers only as it is documented; another case or a final slash is
// 404 in the envelope, so a proxy that blocks /metrics blocks every way to it.
func TestRoutingIsExact(t *testing.T) {
	e := newEnv(t)
	e.withMetrics()
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	key := bearer(tn.readKey)
	for _, path := range []string{"/metrics", "/v3/projects", "/healthz", "/dashboard", "/dashboard/index.html", "/dashboard/app.js", "/docs"} {
		if r := e.do("GET", path, nil, key...); r.Status != 200 {
			t.Errorf("GET %s: %d %s", path, r.Status, r.Body)
		}
	}
	for _, path := range []string{"/METRICS", "/Metrics", "/metrics/", "/V3/projects", "/v3/projects/", "/v3/Projects",
		"/Healthz", "/healthz/", "/Dashboard", "/docs/", "/v3/connections/" + tn.alpha.ID + "/sync/"} {
		wantError(t, e.do("GET", path, nil, key...), 404, "not_found_error", "resource_not_found")
	}
}
