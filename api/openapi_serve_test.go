package api_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestOpenAPIDocumentIsServed: GET /v3/openapi.json answers the document without a credential,
// and outside the rate limits.
func TestOpenAPIDocumentIsServed(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/v3/openapi.json", nil)
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil || r.Status != 200 {
		t.Fatalf("%d %v", r.Status, err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Paths["/v3/query"] == nil {
		t.Fatalf("not the document: openapi %q, %d paths", doc.OpenAPI, len(doc.Paths))
	}
	if got := r.Header.Get("Content-Type"); got != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q", got)
	}
	if r.Header.Get("X-RateLimit-Limit") != "" {
		t.Fatal("the document is rate limited")
	}
}

// TestReferencePageIsServed: GET /docs answers the HTML reference without a credential, with a
// policy that lets it load nothing from elsewhere.
func TestReferencePageIsServed(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/docs", nil)
	if r.Status != 200 || r.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Fatalf("%d %q", r.Status, r.Header.Get("Content-Type"))
	}
	if !strings.Contains(string(r.Body), `<script id="openapi" type="application/json">`) {
		t.Fatal("the page does not carry the document")
	}
	if csp := r.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none';") {
		t.Fatalf("Content-Security-Policy %q", csp)
	}
}
