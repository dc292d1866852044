package apitest

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// recorder is a testing.TB that keeps the errors reported on it.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestDriftIsReported: the check that Start installs reports, on the test, answers that the
// OpenAPI document does not describe, and nothing for those it does.
func TestDriftIsReported(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string // a reported error contains it; "" wants none
	}{
		{"conforming", 200, `{"status":"ok"}`, ""},
		{"undocumented status", 418, `{"status":"ok"}`, "GET /healthz?probe=1 → 418: status is not supported"},
		{"body breaking its schema", 200, `{"status":"down"}`, "value must be 'ok'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := fiber.New(fiber.Config{DisableStartupMessage: true})
			app.Get("/healthz", func(c *fiber.Ctx) error {
				c.Set("X-Request-Id", "req_1")
				c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
				return c.Status(tc.status).SendString(tc.body)
			})
			d, err := watchDrift(app)
			if err != nil {
				t.Fatal(err)
			}
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			stop := Serve(app, ln)
			resp, err := http.Get("http://" + ln.Addr().String() + "/healthz?probe=1")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if err := stop(); err != nil {
				t.Fatal(err)
			}
			rec := &recorder{TB: t}
			d.report(rec)
			if tc.want == "" {
				if len(rec.errors) > 0 {
					t.Fatalf("errors for a conforming answer: %q", rec.errors)
				}
				return
			}
			for _, e := range rec.errors {
				if strings.HasPrefix(e, "apitest: OpenAPI: ") && strings.Contains(e, tc.want) {
					return
				}
			}
			t.Fatalf("no error containing %q; got %q", tc.want, rec.errors)
		})
	}
}
