package openapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// TestPageIsSelfContained checks that the reference page carries the document and needs nothing
// from elsewhere: no external address, no loaded resource, and a policy that allows only the
// page's own style and script.
func TestPageIsSelfContained(t *testing.T) {
	html := string(page)
	start := strings.Index(html, `<script id="openapi" type="application/json">`)
	end := strings.Index(html[start:], "</script>")
	if start < 0 || end < 0 {
		t.Fatal("the page has no document block")
	}
	block := html[start+len(`<script id="openapi" type="application/json">`) : start+end]
	var inPage, served any
	if err := json.Unmarshal([]byte(block), &inPage); err != nil {
		t.Fatalf("the document block is not JSON: %v", err)
	}
	if err := json.Unmarshal(Document(), &served); err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, inPage), mustJSON(t, served); !bytes.Equal(a, b) {
		t.Fatal("the page's document differs from the served one")
	}
	for _, src := range []string{docsJS, docsCSS} {
		if strings.Contains(strings.ToLower(src), "</script") || strings.Contains(strings.ToLower(src), "</style") {
			t.Fatal("a source would end its block early")
		}
	}
	external := regexp.MustCompile(`(?i)(src\s*=|@import|url\(|https?://[a-z0-9.-]+\.[a-z]{2,}/[^"' ]*\.(js|css|woff2?))`)
	for name, src := range map[string]string{"docs.html": docsHTML, "docs.css": docsCSS, "docs.js": docsJS} {
		if m := external.FindString(src); m != "" {
			t.Errorf("%s loads something: %q", name, m)
		}
	}
	for _, want := range []string{"default-src 'none'", "script-src '" + hash(docsJS) + "'", "style-src '" + hash(docsCSS) + "'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %q", csp, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestServeDocs(t *testing.T) {
	app := fiber.New()
	app.Get("/docs", ServeDocs)
	resp, err := app.Test(httptest.NewRequest("GET", "/docs", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !bytes.Equal(body, page) {
		t.Fatalf("%d %q: not the page", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if resp.Header.Get("Content-Security-Policy") != csp {
		t.Fatalf("Content-Security-Policy %q", resp.Header.Get("Content-Security-Policy"))
	}
}
