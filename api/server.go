// Package api is mtk's HTTP layer (Fiber): it authenticates, limits and decodes requests, calls
// one service method, and renders results and errors in the contract's shapes. No SQL lives here.
package api

import (
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"

	"mtk/api/dashboard"
	"mtk/api/demoshop"
	"mtk/api/openapi"
	"mtk/api/ratelimit"
	"mtk/internal/jsonx"
)

// BodyLimit is the largest request body accepted.
const BodyLimit = 1 << 20

// server is the handlers' receiver: Deps, and what the handlers keep between requests.
type server struct {
	Deps
	// passwords limits failed passwords per e-mail (checkPassword); passwordsFailed, when set,
	// counts the attempts let through because it failed.
	passwords       ratelimit.Failures
	passwordsFailed func()
	// queryBodies keeps the checked queries of bodies already read (queryInput).
	queryBodies *queryBodies
}

// missing names the required members that d lacks.
func missing(d Deps) []string {
	var out []string
	for name, absent := range map[string]bool{"Clock": d.Clock == nil, "Log": d.Log == nil,
		"Postgres": d.Postgres == nil, "ClickHouse": d.ClickHouse == nil, "Idempotency": d.Idempotency == nil,
		"Users": d.Users == nil, "Keys": d.Keys == nil, "Projects": d.Projects == nil, "Connections": d.Connections == nil,
		"Containers": d.Containers == nil, "Links": d.Links == nil, "OAuth": d.OAuth == nil,
		"Answers": d.Answers == nil, "Events": d.Events == nil, "Stats": d.Stats == nil, "Orders": d.Orders == nil,
		"Fires": d.Fires == nil, "Objects": d.Objects == nil, "Scripts": d.Scripts == nil} {
		if absent {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// New builds the HTTP application over d (wire.System.API). It panics when a required member is
// missing: a route without its service would answer 500 only when first called.
func New(d Deps) *fiber.App {
	s, app, routes := newApp(d)
	dashboard.Register(app)
	if d.Config.DemoShop {
		demoshop.Register(app, d.Config.BaseURL, d.Containers.ContainerForHost)
	}
	app.Get("/v3/openapi.json", openapi.ServeDocument) // before the /v3 group: no credential, not limited
	app.Get("/docs", openapi.ServeDocs)

	// One set of counters for every route, so that a client IP has one public limit whichever
	// public routes it calls. Login counts per client IP whatever credential comes with it: it
	// takes none, and a refused one would otherwise lift the limit (credentialRejected). It is
	// mounted before the group, so that identify never runs for it.
	limits := s.limits()
	public := ratelimit.New(limits)
	app.Post("/v3/auth/login", public, s.login)
	withRejected := limits
	withRejected.Rejected = credentialRejected
	v3 := app.Group("/v3", s.identify, ratelimit.New(withRejected))
	v3.Post("/auth/logout", s.logout)
	v3.Get("/projects", legacyErrors, require(scopeDataRead, workspaceOptional), s.listProjects)
	v3.Get("/projects/:project_id/connections", legacyErrors, require(scopeDataRead, workspaceOptional), s.listConnections)
	v3.Get("/connections/:connection_id/sync", require(scopeDataRead, workspaceOptional), s.syncStatus)
	s.objectRoutes(v3)
	v3.Post("/query", require(scopeDataRead, workspaceRequired), s.query)
	v3.Post("/query/explain", require(scopeDataRead, workspaceRequired), s.explain)
	v3.Get("/fields", require(scopeDataRead, workspaceRequired), s.fields)
	s.trackingRoutes(app, v3, public)
	s.eventRoutes(app, v3, public)
	app.Post("/v2/tracking/generic", public, s.orderWebhook)
	app.Get("/t/:script", public, s.tagScript)
	s.oauthRoutes(app, v3, public)
	routes.learn(app)
	return app
}

// Worker builds the HTTP application of a worker (`mtk serve --role worker`): /healthz, /readyz
// and /metrics only, for the orchestrator's checks and the scrapes; every other path is 404.
func Worker(d Deps) *fiber.App {
	_, app, routes := newApp(d)
	routes.learn(app)
	return app
}

// proxyHeader is the header that names the client: X-Forwarded-For when balancers are trusted.
func proxyHeader(trusted []string) string {
	if len(trusted) == 0 {
		return ""
	}
	return fiber.HeaderXForwardedFor
}

// newApp is what every role's application shares: the server over d, Fiber's settings, the
// middleware, /healthz, /readyz and /metrics. It panics when d lacks a required member.
func newApp(d Deps) (*server, *fiber.App, *routeLabels) {
	if m := missing(d); len(m) > 0 {
		panic("api: Deps lacks " + strings.Join(m, ", "))
	}
	s := &server{Deps: d, queryBodies: newQueryBodies()}
	app := fiber.New(fiber.Config{
		AppName:               "mtk",
		BodyLimit:             BodyLimit,
		ErrorHandler:          errorHandler(d.Log),
		DisableStartupMessage: true,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           120 * time.Second,
		JSONEncoder:           jsonx.Marshal,
		// Routing is exact: /METRICS or /metrics/ must not reach a route that a proxy blocks
		// by its path.
		StrictRouting: true,
		CaseSensitive: true,
		// Behind trusted balancers the client is the one X-Forwarded-For names (config.TrustedProxies).
		ProxyHeader:             proxyHeader(d.Config.TrustedProxies),
		EnableTrustedProxyCheck: len(d.Config.TrustedProxies) > 0,
		TrustedProxies:          d.Config.TrustedProxies,
		EnableIPValidation:      true,
	})
	app.Server().ErrorHandler = refuseUnreadable(app)
	app.Server().SecureErrorLogMessage = true // fasthttp's error texts never quote the request
	routes := &routeLabels{}
	app.Use(withRequestID)
	if d.Metrics != nil {
		app.Use(countRequests(d.Metrics, routes))
	}
	app.Use(logRequests(d.Log), recoverPanics(), checkText(routes), withStoreDeadline(d.Config.StoreDeadline()))

	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	if d.Metrics != nil && d.Config.MetricsListen() == "" {
		app.Get("/metrics", adaptor.HTTPHandler(d.Metrics.Handler()))
	}
	return s, app, routes
}
