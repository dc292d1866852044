package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"mtk/api/openapi"
	"mtk/internal/auth"
)

// spec is the OpenAPI document that every answer of e.do is checked against, loaded once.
type spec struct {
	doc    *openapi3.T
	router routers.Router
}

var loadSpec = sync.OnceValues(func() (*spec, error) {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder) // /docs, /dashboard
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document())
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &spec{doc: doc, router: router}, nil
})

// checkedHeaders are the response headers that the document must list wherever the server sends
// them (the validator itself only checks the headers the document lists).
var checkedHeaders = []string{
	"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After",
	"X-Idempotent-Replayed", "Location",
}

// checkSpec reports, as a test error naming the route, an answer that the document does not
// describe: an undocumented route or status, a body that does not match its schema, a header
// that breaks its schema or is missing or undocumented. Requests are checked too, but since tests
// send bad requests on purpose, a request the document refuses is only an error when the server
// accepted it (a status below 400).
func (e *env) checkSpec(method, target string, hasBody bool, body []byte, headers []string, r response) {
	e.t.Helper()
	sp, err := loadSpec()
	if err != nil {
		e.t.Fatal(err)
	}
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	fail := func(format string, args ...any) {
		e.t.Helper()
		e.t.Errorf("OpenAPI: %s %s → %d: %s", method, target, r.Status, fmt.Sprintf(format, args...))
	}
	route, params, err := sp.router.FindRoute(req)
	if p, ok := sp.fiberPath(req.URL.Path); err != nil && ok {
		req.URL.Path = p
		route, params, err = sp.router.FindRoute(req)
	}
	if err != nil {
		if e.testRoute(method, req.URL.Path) {
			return
		}
		if r.Status != http.StatusNotFound && r.Status != http.StatusMethodNotAllowed {
			fail("no documented operation (%v)", err)
			return
		}
		if err := sp.errorEnvelope(r.Body); err != nil {
			fail("an unknown route's answer is not the error envelope: %v", err)
		}
		return
	}
	opts := &openapi3filter.Options{AuthenticationFunc: credentialSent, MultiError: true, IncludeResponseStatus: true}
	opts.WithCustomSchemaErrorFunc(schemaProblem)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && r.Status < 400 {
		fail("the document refuses the request, yet the server accepted it: %v", err)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: r.Status, Header: r.Header, Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out.SetBodyBytes(r.Body)); err != nil {
		fail("%v\nbody: %.500s", err, r.Body)
	}
	if documented := route.Operation.Responses.Status(r.Status); documented != nil {
		for _, h := range checkedHeaders {
			if r.Header.Get(h) != "" && documented.Value.Headers[h] == nil {
				fail("header %s is not documented for this status", h)
			}
		}
	}
}

// fiberPath is the documented path that Fiber routes path to, matching as Fiber does without
// case and ignoring a final slash; the path's parameters keep their text.
func (sp *spec) fiberPath(path string) (string, bool) {
	got := strings.Split(strings.TrimSuffix(path, "/"), "/")
	for template := range sp.doc.Paths.Map() {
		want := strings.Split(template, "/")
		if len(want) != len(got) {
			continue
		}
		out := make([]string, len(got))
		for i := range want {
			switch {
			case strings.HasPrefix(want[i], "{") && got[i] != "":
				out[i] = got[i]
			case strings.EqualFold(want[i], got[i]):
				out[i] = want[i]
			default:
				out = nil
			}
			if out == nil {
				break
			}
		}
		if out != nil {
			return strings.Join(out, "/"), true
		}
	}
	return "", false
}

// schemaProblem words a schema error in one line: where and why, without the schema's text.
func schemaProblem(err *openapi3.SchemaError) string {
	reason := err.Reason
	if reason == "" {
		reason = "breaks " + err.SchemaField
	}
	if strings.HasPrefix(reason, "at '") {
		return reason
	}
	return fmt.Sprintf("at '/%s': %s", strings.Join(err.JSONPointer(), "/"), reason)
}

// errorEnvelope validates body against the error envelope's schema.
func (sp *spec) errorEnvelope(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return sp.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
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

// credentialSent is the validator's authentication: it checks that the request carries what a
// security scheme names (the server checks whether it is good).
func credentialSent(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	req := in.RequestValidationInput.Request
	bearer, _ := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	var ok bool
	switch in.SecuritySchemeName {
	case "apiKey":
		ok = strings.HasPrefix(bearer, auth.APIKeyPrefix)
	case "jwt":
		ok = bearer != "" && !strings.HasPrefix(bearer, auth.APIKeyPrefix)
	case "apiKeyHeader":
		ok = req.Header.Get("x-api-key") != ""
	case "workspace":
		ok = req.Header.Get(headerWorkspace) != ""
	case "webhookKey":
		ok = req.URL.Query().Get("k") != ""
	default:
		return fmt.Errorf("unknown security scheme %q", in.SecuritySchemeName)
	}
	if !ok {
		return errors.New("credential not sent")
	}
	return nil
}
