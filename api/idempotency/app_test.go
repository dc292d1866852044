package idempotency

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

var t0 = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

// testLease is the test apps' lease, short so that renewals and their failures take little real
// time; testStoreTimeout bounds their settling.
const (
	testLease        = 300 * time.Millisecond
	testStoreTimeout = time.Second
)

// testApp is a small API behind the middleware: request ids, a fake authentication that reads
// the principal from test headers (X-Key; X-User with X-Workspace; none means no principal),
// an error handler that renders apperr errors, and routes that count their runs.
type testApp struct {
	app   *fiber.App
	pool  *pgxpool.Pool
	store *Store
	clk   *clock.Fake
	runs  atomic.Int64
	// /v3/slow signals entered, then waits for release; so does /v3/held, which also stops when
	// its context ends and then fails with the context's error.
	entered, release chan struct{}
}

func newTestApp(t *testing.T, scope func(*fiber.Ctx) (string, error)) *testApp {
	t.Helper()
	pg := testenv.Postgres(t)
	ta := &testApp{
		pool: pg.Pool, store: NewStore(pg.Pool), clk: clock.NewFake(t0),
		entered: make(chan struct{}, 10), release: make(chan struct{}),
	}
	var requests atomic.Int64
	app := fiber.New(fiber.Config{ErrorHandler: renderError})
	app.Use(recover.New())
	app.Use(func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderXRequestID, fmt.Sprintf("req_%d", requests.Add(1)))
		return c.Next()
	})
	app.Use(func(c *fiber.Ctx) error {
		switch {
		case c.Get("X-Key") != "":
			auth.Set(c, &auth.Principal{Kind: auth.KindAPIKey, KeyID: c.Get("X-Key")})
		case c.Get("X-User") != "":
			auth.Set(c, &auth.Principal{Kind: auth.KindJWT, UserID: c.Get("X-User"), WorkspaceID: c.Get("X-Workspace")})
		}
		return c.Next()
	})
	app.Use(New(Config{Store: ta.store, Clock: ta.clk, Scope: scope, Lease: testLease, StoreTimeout: testStoreTimeout}))

	thing := func(c *fiber.Ctx) error {
		n := ta.runs.Add(1)
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"run": n, "body": string(c.Body())})
	}
	app.Post("/v3/things", thing)
	app.Put("/v3/things", thing)
	app.Get("/v3/things", thing)
	app.Post("/v3/invalid", func(c *fiber.Ctx) error {
		ta.runs.Add(1)
		return apperr.Invalid("Bad thing.", "thing: bad")
	})
	app.Post("/v3/boom", func(c *fiber.Ctx) error {
		ta.runs.Add(1)
		return errors.New("boom")
	})
	app.Post("/v3/unavailable", func(c *fiber.Ctx) error {
		ta.runs.Add(1)
		return c.Status(fiber.StatusServiceUnavailable).SendString("try later")
	})
	app.Post("/v3/panic", func(c *fiber.Ctx) error {
		ta.runs.Add(1)
		panic("handler panicked")
	})
	app.Post("/v3/slow", func(c *fiber.Ctx) error {
		ta.entered <- struct{}{}
		<-ta.release
		ta.runs.Add(1)
		return c.SendString("slow done")
	})
	app.Post("/v3/held", func(c *fiber.Ctx) error {
		ta.entered <- struct{}{}
		ta.runs.Add(1)
		select {
		case <-ta.release:
			return c.SendString("held done")
		case <-c.UserContext().Done():
			return c.UserContext().Err()
		}
	})
	ta.app = app
	return ta
}

// renderError stands in for the API's error handler: the contract's envelope, with request_id
// taken from the X-Request-Id response header, and Retry-After.
func renderError(c *fiber.Ctx, err error) error {
	e, ok := apperr.As(err)
	if !ok {
		e = apperr.Internal()
	}
	if e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
	}
	return c.Status(e.Status).JSON(fiber.Map{"error": fiber.Map{
		"type": e.Type, "code": e.Code, "message": e.Message, "details": e.Details,
		"request_id": c.GetRespHeader(fiber.HeaderXRequestID),
	}})
}

type result struct {
	status      int
	body        string
	contentType string
	replayed    string
	requestID   string
	original    string
	retryAfter  string
}

// do sends a request; headers are name, value pairs, and a name may repeat.
func (ta *testApp) do(method, path, body string, headers ...string) (result, error) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	resp, err := ta.app.Test(req, -1)
	if err != nil {
		return result{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, err
	}
	return result{
		status: resp.StatusCode, body: string(b), contentType: resp.Header.Get(fiber.HeaderContentType),
		replayed: resp.Header.Get(HeaderReplayed), requestID: resp.Header.Get(fiber.HeaderXRequestID),
		original: resp.Header.Get(HeaderOriginalRequest), retryAfter: resp.Header.Get(fiber.HeaderRetryAfter),
	}, nil
}

func (ta *testApp) call(t *testing.T, method, path, body string, headers ...string) result {
	t.Helper()
	r, err := ta.do(method, path, body, headers...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func (ta *testApp) records(t *testing.T) int {
	t.Helper()
	var n int
	if err := ta.pool.QueryRow(t.Context(), "SELECT count(*) FROM idempotency_records").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// wantConflict fails unless r is the 409 idempotency_conflict.
func wantConflict(t *testing.T, r result) {
	t.Helper()
	if r.status != http.StatusConflict || !strings.Contains(r.body, `"type":"conflict_error"`) ||
		!strings.Contains(r.body, `"code":"idempotency_conflict"`) {
		t.Fatalf("got %d %s, want 409 conflict_error/idempotency_conflict", r.status, r.body)
	}
}
