// Package apitest serves mtk's real HTTP API on a loopback port, wired as `mtk serve` wires it,
// for code that talks to it over the network: the Go client's tests, end-to-end tests,
// benchmarks. Start gives a test its own databases (internal/testenv) and a server on them,
// wired by internal/wire, that checks every request and answer against the OpenAPI document
// (api/openapi/conform); Serve serves an app of the caller's own.
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
	"mtk/internal/clock"
	"mtk/internal/config"
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
		opts.Logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	cfg := config.Config{Listen: ln.Addr().String(), ClickHouseURL: ch.URL, PostgresURL: pg.URL, JWTSecret: jwtSecret,
		BaseURL: url, RateLimits: "on"}
	if opts.RateLimitsOff {
		cfg.RateLimits = "off"
	}
	sys := wire.Build(cfg, pg.Pool, ch.Conn, wire.Options{Clock: opts.Clock, Logger: opts.Logger})
	app := api.New(sys)
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

// Tenant is a workspace with one member, a project (BRL, America/Sao_Paulo), an alpha_ads
// connection (ad account act_1), a custom checkout connection (its WebhookKey takes orders) and
// a v3 container for the domain <name>.example.
type Tenant struct {
	Workspace platform.Workspace
	User      platform.User
	Password  string
	Project   platform.Project
	Alpha     platform.Connection
	Custom    platform.Connection
	Container platform.Container
}

// NewTenant makes a tenant of tier (platform.TierDefault, …) named name.
func (s *Server) NewTenant(t testing.TB, name, tier string) Tenant {
	t.Helper()
	ctx := context.Background()
	var tn Tenant
	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("apitest: tenant %s: %v", name, err)
		}
	}
	tn.Workspace, err = s.Store.Workspaces.CreateWorkspace(ctx, name, tier)
	must(err)
	tn.Password = "password-" + name
	tn.User, err = s.Store.Users.CreateUser(ctx, name+"@example.com", "User "+name, tn.Password, tn.Workspace.ID, platform.RoleAdmin)
	must(err)
	tn.Project, err = s.Store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: tn.Workspace.ID, Name: "Project " + name,
		Currency: "BRL", Timezone: "America/Sao_Paulo"})
	must(err)
	tn.Alpha, err = s.Store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: tn.Project.ID, Kind: platform.KindAlpha,
		Name: "Alpha " + name, SourceID: "act_1"})
	must(err)
	tn.Custom, err = s.Store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: tn.Project.ID, Kind: platform.KindCustom,
		Name: "Checkout " + name})
	must(err)
	tn.Container, err = s.Store.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: tn.Project.ID, Domain: name + ".example"})
	must(err)
	return tn
}

// Key makes an API key of workspaceID with scopes and returns its token.
func (s *Server) Key(t testing.TB, workspaceID string, scopes ...string) string {
	t.Helper()
	k, err := s.Store.Keys.CreateAPIKey(context.Background(), workspaceID, "apitest", scopes, nil)
	if err != nil {
		t.Fatalf("apitest: key: %v", err)
	}
	return k.Token
}

// Drain moves the event and fact outboxes into ClickHouse, as the workers of `mtk serve` do.
func (s *Server) Drain(t testing.TB) {
	t.Helper()
	if err := s.system.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}
