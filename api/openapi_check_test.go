package api_test

import (
	"net/http"

	"mtk/api/openapi/conform"
)

// checkSpec reports, as test errors, what the OpenAPI document does not describe in a request of
// e.do and its answer (conform.Checker.Check); routes that the test registered on its own app
// are not checked.
func (e *env) checkSpec(method, target string, reqHeader http.Header, body []byte, r response) {
	e.t.Helper()
	c, err := conform.Load()
	if err != nil {
		e.t.Fatal(err)
	}
	c.Ignore = e.testRoute
	for _, problem := range c.Check(method, target, reqHeader, body, r.Status, r.Header, r.Body) {
		e.t.Error(problem)
	}
}

// testRoute reports whether the request matches a route that a test registered on its own app
// (TestEveryRouteIsDocumented checks that the server registers none outside the document).
func (e *env) testRoute(method, path string) bool {
	for _, r := range e.app.GetRoutes(true) {
		if r.Method == method && r.Path == path {
			return true
		}
	}
	return false
}
