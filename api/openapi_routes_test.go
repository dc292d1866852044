package api

import (
	"regexp"
	"testing"
)

// pendingRoutes are documented routes that other branches add (the Prometheus metrics and the
// dashboard). Remove each entry once its route is registered: the test fails until then.
var pendingRoutes = map[string]bool{"GET /metrics": true, "GET /dashboard": true}

var fiberParam = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)

// TestEveryRouteIsDocumented checks that the routes the server registers and the operations of
// the OpenAPI document are the same, so that a route cannot be added undocumented. HEAD routes,
// which Fiber adds for every GET, are left out.
func TestEveryRouteIsDocumented(t *testing.T) {
	sp, err := loadSpec()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range sp.doc.Paths.Map() {
		for method := range item.Operations() {
			documented[method+" "+path] = true
		}
	}
	registered := map[string]bool{}
	for _, r := range newEnv(t).app.GetRoutes(true) {
		if r.Method != "HEAD" {
			registered[r.Method+" "+fiberParam.ReplaceAllString(r.Path, "{$1}")] = true
		}
	}
	if len(registered) == 0 {
		t.Fatal("the app registers no route")
	}
	for route := range registered {
		switch {
		case pendingRoutes[route]:
			t.Errorf("%s is registered now: remove it from pendingRoutes", route)
		case !documented[route]:
			t.Errorf("%s is registered but not in the OpenAPI document (api/openapi/openapi.yaml)", route)
		}
	}
	for route := range documented {
		if !registered[route] && !pendingRoutes[route] {
			t.Errorf("%s is in the OpenAPI document but the server does not register it", route)
		}
	}
}
