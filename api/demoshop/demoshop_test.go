package demoshop

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/platform"
)

// The shop's pages carry the tag of the container that takes their host, under a policy that
// allows nothing but the page's origin and mtk's; on a host no container takes, they say where
// to open the shop instead. Its files are served; other paths are 404.
func TestShopPages(t *testing.T) {
	code := "MTK-7F3K9Q"
	app := fiber.New()
	Register(app, "http://127.0.0.1:8080", func(_ context.Context, host string) (platform.Container, error) {
		if host != Host {
			return platform.Container{}, apperr.NotFound("Container not found.")
		}
		return platform.Container{ID: "ctr_1", TrackingCode: &code}, nil
	})
	get := func(host, path string) (int, string, string) {
		req := httptest.NewRequest("GET", path, nil)
		req.Host = host
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), resp.Header.Get("Content-Security-Policy")
	}
	tagLine := `<script async src="http://127.0.0.1:8080/t/MTK-7F3K9Q.js"></script>`
	for _, page := range []string{"", "product", "video", "contact", "thanks", "guide"} {
		status, body, csp := get(Host+":8080", Path+page)
		if status != 200 || !strings.Contains(body, tagLine) || strings.Contains(body, "carries no tag") ||
			!strings.Contains(csp, "script-src 'self' http://127.0.0.1:8080;") || !strings.Contains(csp, "connect-src 'self' http://127.0.0.1:8080;") {
			t.Fatalf("%s: %d %q\n%s", page, status, csp, body)
		}
	}
	if _, body, _ := get(Host+":8080", Path+"contact"); !strings.Contains(body, `<form id="lead-form"`) || !strings.Contains(body, `type="email"`) {
		t.Fatalf("contact form: %s", body)
	}
	if _, body, _ := get(Host+":8080", Path+"video"); !strings.Contains(body, `<video id="product-video" src="/demo-shop/static/shoe.webm"`) {
		t.Fatalf("video page: %s", body)
	}
	status, body, _ := get("127.0.0.1:8080", Path)
	if status != 200 || strings.Contains(body, "<script") || !strings.Contains(body, "http://shop.localhost:8080/demo-shop/") {
		t.Fatalf("untagged host: %d %s", status, body)
	}
	if status, body, _ := get(Host, Path+"static/shoe.webm"); status != 200 || len(body) < 1000 || !strings.HasPrefix(body, "\x1a\x45\xdf\xa3") {
		t.Fatalf("video file: %d, %d bytes", status, len(body))
	}
	for _, path := range []string{Path + "admin", Path + "static/nope.css", Path + "static/..%2fdemoshop.go"} {
		if status, _, _ := get(Host, path); status != 404 {
			t.Fatalf("%s: %d", path, status)
		}
	}
}
