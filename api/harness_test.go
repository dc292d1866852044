package api_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
	"mtk/ingest/attribution"
	"mtk/ingest/events"
	"mtk/internal/apitest/fixture"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/metrics"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

const testSecret = "test-secret-test-secret-test-secret-0123"

// env is one test's server with its own databases and a clock the test moves.
type env struct {
	t     *testing.T
	app   *fiber.App
	store *platform.Services
	clock *clock.Fake
	cfg   config.Config
	logs  *bytes.Buffer
	ch    driver.Conn

	sys      *wire.System
	events   *events.Service
	resolver *attribution.Resolver
	// eventsConfig configures the events service: its Batch and Bounds (rebuild after changing it).
	eventsConfig events.Config
}

func newEnv(t *testing.T) *env {
	t.Helper()
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	cfg := config.Config{
		Listen: "127.0.0.1:0", ClickHouseURL: ch.URL, ClickHouseHTTPURL: ch.HTTPURL, PostgresURL: pg.URL, JWTSecret: testSecret,
		BaseURL: "https://mtk.example", RateLimits: config.On,
	}
	e := &env{t: t, store: platform.New(pg.Pool, clk), clock: clk, cfg: cfg, logs: &bytes.Buffer{}, ch: ch.Conn}
	e.rebuild()
	e.t.Cleanup(func() { e.sys.Close() })
	return e
}

// rebuild makes the app again from e.cfg and e.eventsConfig, after a test changed them.
func (e *env) rebuild() { e.rebuildWith(nil) }

// rebuildWith builds the system as mtk serve does (wire.Build), measured by m (nil: not).
func (e *env) rebuildWith(m *metrics.Metrics) {
	if e.sys != nil {
		e.sys.Close()
	}
	sys, err := wire.Build(e.cfg, e.store.Pool(), e.ch, wire.Options{Clock: e.clock, Metrics: m,
		Logger: slog.New(slog.NewJSONHandler(e.logs, nil)), Batch: e.eventsConfig.Batch, Bounds: e.eventsConfig.Bounds})
	if err != nil {
		e.t.Fatal(err)
	}
	e.sys = sys
	e.store, e.events, e.resolver = e.sys.Store, e.sys.Events, e.sys.Resolver
	e.app = api.New(e.sys.API())
}

// systemOver is the system over other stores than the env's (a proxy, a dead port), closed with t.
func systemOver(t *testing.T, cfg config.Config, pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *wire.System {
	sys, err := wire.Build(cfg, pool, ch, wire.Options{Clock: clk, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(sys.Close)
	return sys
}

// response is a decoded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r response) JSON(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v\n%s", err, r.Body)
	}
	return m
}

// List decodes a JSON array body.
func (r response) List(t *testing.T) []map[string]any {
	t.Helper()
	var l []map[string]any
	if err := json.Unmarshal(r.Body, &l); err != nil {
		t.Fatalf("body is not a JSON array: %v\n%s", err, r.Body)
	}
	return l
}

// do sends a request; headers are name, value pairs. Every request and answer is checked against
// the OpenAPI document (checkSpec).
func (e *env) do(method, path string, body any, headers ...string) response {
	e.t.Helper()
	req, raw := e.request(method, path, body, headers...)
	resp, err := e.app.Test(req, -1)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, path, err)
	}
	return e.checked(req, raw, resp)
}

// request is do's request: body is nil, a string or bytes sent as they are, or a value sent as
// JSON; it returns the body's bytes too.
func (e *env) request(method, path string, body any, headers ...string) (*http.Request, []byte) {
	e.t.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		raw = buf
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(raw)
	}
	req := httptest.NewRequest(method, path, rd)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req, raw
}

// checked reads the answer to req, whose body was raw, and checks both against the document.
func (e *env) checked(req *http.Request, raw []byte, resp *http.Response) response {
	e.t.Helper()
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	r := response{Status: resp.StatusCode, Header: resp.Header, Body: out}
	e.checkSpec(req.Method, req.RequestURI, req.Header, raw, r)
	return r
}

// bearer is the Authorization header pair for token.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// tenant is a fixture tenant under the api tests' short names, with a data:read and a
// tracking:read key.
type tenant struct {
	ws       platform.Workspace
	user     platform.User
	password string
	project  platform.Project
	alpha    platform.Connection
	custom   platform.Connection
	readKey  string // data:read
	trackKey string // tracking:read only
}

// newTenant makes a tenant whose alpha connection has ad account accountID (act_<digits>).
func (e *env) newTenant(name, tier, accountID string) tenant {
	e.t.Helper()
	f := fixture.NewTenant(e.t, e.store, name, tier, accountID)
	return tenant{ws: f.Workspace, user: f.User, password: f.Password, project: f.Project, alpha: f.Alpha, custom: f.Custom,
		readKey: e.key(f.Workspace.ID, nil, auth.ScopeDataRead), trackKey: e.key(f.Workspace.ID, nil, auth.ScopeTrackingRead)}
}

// key creates an API key and returns its token.
func (e *env) key(workspaceID string, expires *time.Time, scopes ...string) string {
	e.t.Helper()
	return fixture.Key(e.t, e.store, workspaceID, expires, scopes...)
}

// login returns a JWT for the tenant's user.
func (e *env) login(tn tenant) string {
	e.t.Helper()
	r := e.do("POST", "/v3/auth/login", map[string]string{"email": tn.user.Email, "password": tn.password})
	if r.Status != 200 {
		e.t.Fatalf("login: %d %s", r.Status, r.Body)
	}
	return r.JSON(e.t)["token"].(string)
}

// wantError checks status and the envelope's type and code, and that request_id matches the
// X-Request-Id header.
func wantError(t *testing.T, r response, status int, typ, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	body := r.JSON(t)
	errObj, ok := body["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object: %s", r.Body)
	}
	if errObj["type"] != typ || errObj["code"] != code {
		t.Fatalf("error %v/%v, want %s/%s: %s", errObj["type"], errObj["code"], typ, code, r.Body)
	}
	if rid := r.Header.Get("X-Request-Id"); rid == "" || errObj["request_id"] != rid {
		t.Fatalf("request_id %v does not match X-Request-Id %q", errObj["request_id"], rid)
	}
	if msg, _ := errObj["message"].(string); msg == "" {
		t.Fatalf("empty message: %s", r.Body)
	}
	return errObj
}

// wantLegacy checks a {error, message} body.
func wantLegacy(t *testing.T, r response, status int, errValue string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	body := r.JSON(t)
	if body["error"] != errValue || body["message"] == "" || len(body) != 2 {
		t.Fatalf("want {error: %q, message}, got %s", errValue, r.Body)
	}
}
