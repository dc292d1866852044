// Package apitest serves mtk's real HTTP API on a loopback port, wired as `mtk serve` wires it,
// for code that talks to it over the network: the Go client's tests, end-to-end tests,
// benchmarks. Start gives a test its own databases (internal/testenv) and a server on them,
// wired by internal/wire, that checks every request and answer against the OpenAPI document
// (api/openapi/conform); Serve serves an app of the caller's own. Its tenants, keys and drains
// come from internal/apitest/fixture, which api's own tests share.
package apitest

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
	"mtk/internal/apitest/fixture"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/jsonlog"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

// jwtSecret signs the test servers' login tokens.
const jwtSecret = "apitest-secret-apitest-secret-apitest-0123"

// Options adjust Start.
type Options struct {
	// Clock is the server's clock; nil means the wall clock. A *clock.Fake lets a test move the
	// rate limiter's windows and the JWTs' age.
	Clock clock.Clock
	// RateLimitsOff turns rate limiting off, as MTK_RATE_LIMITS=off does.
	RateLimitsOff bool
	// Logger receives the request logs; nil discards them.
	Logger *slog.Logger
}

// Server is the API serving on 127.0.0.1, with the stores it uses.
type Server struct {
	// URL is the base address, http://127.0.0.1:<port>; it is also the server's MTK_BASE_URL.
	URL        string
	Config     config.Config
	Store      *platform.Services
	Postgres   *pgxpool.Pool
	ClickHouse driver.Conn
	Clock      clock.Clock

	system *wire.System
}

// Start serves the API on t's own PostgreSQL and ClickHouse databases until t ends. Every request
// it handles and every answer is checked against the OpenAPI document (api/openapi/conform):
// what the document does not describe fails t when t ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	pg, ch := testenv.Postgres(t), testenv.ClickHouse(t)
	if opts.Clock == nil {
		opts.Clock = clock.Real{}
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(jsonlog.New(io.Discard, nil))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	cfg := config.Config{Listen: ln.Addr().String(), ClickHouseURL: ch.URL, ClickHouseHTTPURL: ch.HTTPURL, PostgresURL: pg.URL, JWTSecret: jwtSecret,
		BaseURL: url, RateLimits: config.On}
	if opts.RateLimitsOff {
		cfg.RateLimits = config.Off
	}
	sys, err := wire.Build(cfg, pg.Pool, ch.Conn, wire.Options{Clock: opts.Clock, Logger: opts.Logger})
	if err != nil {
		t.Fatal(err)
	}
	app := api.New(sys.API())
	store, closeApp := sys.Store, sys.Close
	d, err := watchDrift(app)
	if err != nil {
		t.Fatal(err)
	}
	stop := Serve(app, ln)
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("apitest: shutdown: %v", err)
		}
		closeApp()
		d.report(t)
	})
	return &Server{URL: url, Config: cfg, Store: store, Postgres: pg.Pool,
		ClickHouse: ch.Conn, Clock: opts.Clock, system: sys}
}

// Serve serves app on ln in the background. stop ends it, waiting up to 5 s for the requests in
// flight.
func Serve(app *fiber.App, ln net.Listener) (stop func() error) {
	go app.Listener(ln) //nolint:errcheck // ends with stop
	return func() error { return app.ShutdownWithTimeout(5 * time.Second) }
}

// Tenant is a fixture tenant (internal/apitest/fixture) whose alpha_ads connection has the ad
// account act_1, with a v3 container for the domain <name>.example.
type Tenant struct {
	fixture.Tenant
	Container platform.Container
}

// NewTenant makes a tenant of tier (platform.TierDefault, …) named name.
func (s *Server) NewTenant(t testing.TB, name, tier string) Tenant {
	t.Helper()
	tn := Tenant{Tenant: fixture.NewTenant(t, s.Store, name, tier, "act_1")}
	var err error
	tn.Container, err = s.Store.Containers.CreateContainer(context.Background(), platform.ContainerInput{ProjectID: tn.Project.ID,
		Domain: name + ".example"})
	if err != nil {
		t.Fatalf("apitest: tenant %s: %v", name, err)
	}
	return tn
}

// Key makes an API key of workspaceID with scopes and returns its token.
func (s *Server) Key(t testing.TB, workspaceID string, scopes ...string) string {
	t.Helper()
	return fixture.Key(t, s.Store, workspaceID, nil, scopes...)
}

// Drain moves the event and fact outboxes into ClickHouse, as the workers of `mtk serve` do, and
// waits until the server has heard the data versions they moved.
func (s *Server) Drain(t testing.TB) {
	t.Helper()
	fixture.Drain(t, s.system)
}
