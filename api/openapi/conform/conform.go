// Package conform checks HTTP requests and answers against mtk's OpenAPI document
// (api/openapi): an undocumented route or status, a body that breaks its schema, a header that
// breaks its schema, is missing or is undocumented. The api package's tests run it on every
// answer of their harness, and internal/apitest on every request its test server handles.
package conform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"mtk/api/openapi"
)

// Checker checks exchanges against the OpenAPI document. Its methods may be called concurrently.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
	// Ignore, when set, names the routes outside the document that the caller registered itself
	// (a test's own handlers): requests to them are not checked.
	Ignore func(method, path string) bool
}

// loaded is the document, parsed once and shared by every Checker.
var loaded = sync.OnceValues(func() (*Checker, error) {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)                    // /docs, /dashboard
	openapi3filter.RegisterBodyDecoder("application/openmetrics-text", openapi3filter.PlainBodyDecoder) // /metrics
	openapi3filter.RegisterBodyDecoder("text/javascript", openapi3filter.PlainBodyDecoder)              // /t/{container}.js
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document())
	if err != nil {
		return nil, fmt.Errorf("loading the OpenAPI document: %w", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("routing the OpenAPI document: %w", err)
	}
	return &Checker{doc: doc, router: router}, nil
})

// Load returns a Checker of the caller's own (its Ignore is the caller's to set) over the
// document, which is parsed once.
func Load() (*Checker, error) {
	c, err := loaded()
	if err != nil {
		return nil, err
	}
	own := *c
	return &own, nil
}

// checkedHeaders are the response headers that the document must list wherever the server sends
// them (the validator itself only checks the headers the document lists).
var checkedHeaders = []string{
	"X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After",
	"X-Idempotent-Replayed", "Location", "WWW-Authenticate",
}

// Check returns what the document does not describe in a request and its answer, one line per
// problem naming the exchange, and nothing when both conform. target is the request's path and
// query. Since tests send bad requests on purpose, a request the document refuses is only a
// problem when the server accepted it (a status below 400). An unknown route must answer 404 or
// 405 with the error envelope.
func (c *Checker) Check(method, target string, reqHeader http.Header, reqBody []byte,
	status int, respHeader http.Header, respBody []byte) []string {
	var problems []string
	fail := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("OpenAPI: %s %s → %d: %s", method, target, status, fmt.Sprintf(format, args...)))
	}
	req, err := http.NewRequest(method, target, bytes.NewReader(reqBody))
	if err != nil {
		fail("unreadable request: %v", err)
		return problems
	}
	req.Header = reqHeader.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	route, params, err := c.router.FindRoute(req)
	if err == nil && !exactly(route.Path, req.URL.EscapedPath()) {
		err = fmt.Errorf("%s is not exactly %s", req.URL.EscapedPath(), route.Path)
	}
	if err != nil {
		if c.Ignore != nil && c.Ignore(method, req.URL.Path) {
			return nil
		}
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			fail("no documented operation (%v)", err)
			return problems
		}
		if err := c.errorEnvelope(respBody); err != nil {
			fail("an unknown route's answer is not the error envelope: %v", err)
		}
		return problems
	}
	opts := &openapi3filter.Options{AuthenticationFunc: credentialSent, MultiError: true, IncludeResponseStatus: true}
	opts.WithCustomSchemaErrorFunc(schemaProblem)
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && status < 400 {
		fail("the document refuses the request, yet the server accepted it: %v", err)
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: status, Header: respHeader, Options: opts}
	if err := openapi3filter.ValidateResponse(context.Background(), out.SetBodyBytes(respBody)); err != nil {
		fail("%v\nbody: %.500s", err, respBody)
	}
	if documented := route.Operation.Responses.Status(status); documented != nil {
		for _, h := range checkedHeaders {
			if respHeader.Get(h) != "" && documented.Value.Headers[h] == nil {
				fail("header %s is not documented for this status", h)
			}
		}
	}
	return problems
}

// exactly reports whether path is the template's as the server routes, exactly: the router of
// the check takes a path with a final slash for the one without.
func exactly(template, path string) bool {
	want, got := strings.Split(template, "/"), strings.Split(path, "/")
	if len(want) != len(got) {
		return false
	}
	for i := range want {
		if strings.HasPrefix(want[i], "{") {
			if got[i] == "" {
				return false
			}
		} else if want[i] != got[i] {
			return false
		}
	}
	return true
}

// Operations lists the document's operations as "METHOD /path", sorted.
func (c *Checker) Operations() []string {
	var ops []string
	for path, item := range c.doc.Paths.Map() {
		for method := range item.Operations() {
			ops = append(ops, method+" "+path)
		}
	}
	slices.Sort(ops)
	return ops
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
func (c *Checker) errorEnvelope(body []byte) error {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return err
	}
	return c.doc.Components.Schemas["Error"].Value.VisitJSON(v, openapi3.EnableJSONSchema2020())
}
