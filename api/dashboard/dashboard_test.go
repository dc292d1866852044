package dashboard

import (
	"io"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
)

func get(t *testing.T, app *fiber.App, path string, headers ...string) (int, map[string]string, string) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	h := map[string]string{}
	for k := range resp.Header {
		h[k] = resp.Header.Get(k)
	}
	return resp.StatusCode, h, string(body)
}

func newApp() *fiber.App {
	app := fiber.New()
	Register(app)
	return app
}

func TestPageHeadersAndCaching(t *testing.T) {
	app := newApp()
	for _, path := range []string{"/dashboard", "/dashboard/", "/dashboard/index.html"} {
		status, h, body := get(t, app, path)
		if status != 200 || h["Content-Type"] != "text/html; charset=utf-8" || !strings.Contains(body, "<title>mtk · Dashboard</title>") {
			t.Fatalf("%s: %d %v", path, status, h)
		}
		if h["Content-Security-Policy"] != contentSecurityPolicy || h["X-Content-Type-Options"] != "nosniff" ||
			h["X-Frame-Options"] != "DENY" || h["Referrer-Policy"] != "no-referrer" {
			t.Fatalf("%s: security headers %v", path, h)
		}
		if h["Cache-Control"] != "no-cache" || h["Etag"] != dashboard.index.etag() {
			t.Fatalf("%s: caching %v", path, h)
		}
	}
	if status, _, body := get(t, app, "/dashboard", "If-None-Match", dashboard.index.etag()); status != 304 || body != "" {
		t.Fatalf("revalidation: %d %q", status, body)
	}
	if status, _, _ := get(t, app, "/dashboard", "If-None-Match", `"stale"`); status != 200 {
		t.Fatalf("stale tag: %d", status)
	}
}

// The page loads every asset by its versioned URL, and nothing inline: the CSP allows only
// files of this origin.
func TestPageReferencesVersionedAssets(t *testing.T) {
	page := string(dashboard.index.body)
	for name, a := range dashboard.assets {
		if !strings.Contains(page, `"/dashboard/`+name+`?v=`+a.version+`"`) {
			t.Errorf("the page does not load %s at version %s", name, a.version)
		}
	}
	scripts := 0
	for name := range dashboard.assets {
		if strings.HasSuffix(name, ".js") {
			scripts++
		}
	}
	// One script tag per script asset, none inline.
	if m := regexp.MustCompile(`<script(?:[^>]*)>`).FindAllString(page, -1); len(m) != scripts {
		t.Errorf("scripts %q", m)
	} else {
		for _, tag := range m {
			if !strings.Contains(tag, ` src="/dashboard/`) {
				t.Errorf("inline script %s", tag)
			}
		}
	}
	if regexp.MustCompile(`<style| style=| on[a-z]+=`).MatchString(page) {
		t.Error("the page has inline styles or handlers")
	}
	// Names come from the ad networks: the scripts build the page with textContent, never markup.
	for name, a := range dashboard.assets {
		if strings.HasSuffix(name, ".js") && regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(`).Match(a.body) {
			t.Errorf("%s writes markup from strings", name)
		}
	}
}

func TestAssets(t *testing.T) {
	app := newApp()
	js := dashboard.assets["app.js"]
	for _, c := range []struct {
		path, caching string
	}{
		{"/dashboard/app.js?v=" + js.version, "public, max-age=31536000, immutable"},
		{"/dashboard/app.js", "no-cache"},
		{"/dashboard/app.js?v=0123456789ab", "no-cache"},
	} {
		status, h, body := get(t, app, c.path)
		if status != 200 || body != string(js.body) || h["Content-Type"] != "text/javascript; charset=utf-8" ||
			h["Cache-Control"] != c.caching || h["Etag"] != js.etag() || h["Content-Security-Policy"] != contentSecurityPolicy {
			t.Fatalf("%s: %d %v", c.path, status, h)
		}
	}
	for name, ct := range map[string]string{"app.css": "text/css; charset=utf-8", "favicon.svg": "image/svg+xml"} {
		if status, h, _ := get(t, app, "/dashboard/"+name); status != 200 || h["Content-Type"] != ct {
			t.Fatalf("%s: %d %v", name, status, h)
		}
	}
	if status, _, _ := get(t, app, "/dashboard/app.js", "If-None-Match", `W/`+js.etag()); status != 304 {
		t.Fatalf("weak revalidation: %d", status)
	}
	for _, path := range []string{"/dashboard/nope.js", "/dashboard/static/app.js", "/dashboard/..%2fdashboard.go", "/dashboard/%2e%2e/dashboard.go"} {
		if status, h, _ := get(t, app, path); status != 404 || h["Content-Security-Policy"] != contentSecurityPolicy {
			t.Fatalf("%s: %d %v", path, status, h)
		}
	}
}
