package api_test

import (
	"regexp"
	"strings"
	"testing"

	"mtk/api/openapi/conform"
)

// optionalRoutes are documented routes that the server registers only in some configurations:
// /metrics when metrics are on and have no listener of their own.
var optionalRoutes = map[string]bool{"GET /metrics": true}

// fiberParam is a Fiber path parameter; the document names Fiber's wildcard (the dashboard's
// assets, /dashboard/*) {file}.
var (
	fiberParam    = regexp.MustCompile(`:([A-Za-z_][A-Za-z0-9_]*)`)
	fiberWildcard = strings.NewReplacer("*", "{file}")
)

// TestEveryRouteIsDocumented checks that the routes the server registers and the operations of
// the OpenAPI document are the same, so that a route cannot be added undocumented. HEAD routes,
// which Fiber adds for every GET, are left out.
func TestEveryRouteIsDocumented(t *testing.T) {
	c, err := conform.Load()
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for _, op := range c.Operations() {
		documented[op] = true
	}
	registered := map[string]bool{}
	for _, r := range newEnv(t).app.GetRoutes(true) {
		if r.Method != "HEAD" {
			registered[r.Method+" "+fiberWildcard.Replace(fiberParam.ReplaceAllString(r.Path, "{$1}"))] = true
		}
	}
	if len(registered) == 0 {
		t.Fatal("the app registers no route")
	}
	for route := range registered {
		if !documented[route] {
			t.Errorf("%s is registered but not in the OpenAPI document (api/openapi/openapi.yaml)", route)
		}
	}
	for route := range documented {
		if !registered[route] && !optionalRoutes[route] {
			t.Errorf("%s is in the OpenAPI document but the server does not register it", route)
		}
	}
}
