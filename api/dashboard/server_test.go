package dashboard_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/adsync"
	"mtk/api"
	"mtk/client"
	"mtk/engine/enginetest"
	"mtk/facts"
	apifixture "mtk/internal/apitest/fixture"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

// The seeded project's zone and ad accounts; the generated ad act_5550_c0_s0_a0 gets the orders.
const (
	zone         = "America/Sao_Paulo"
	alphaAccount = "act_5550"
	orderedAd    = alphaAccount + "_c0_s0_a0"
)

// fixture is the real API (mtk/api with every service) serving on a loopback port over the
// test's own databases, with one workspace that holds a key, a user, a project with data and an
// empty one.
type fixture struct {
	t   *testing.T
	url string
	key string
	// email and password sign the workspace's owner in.
	email, password string
	// webhook is the order webhook's path of the project's checkout; domain is the host of the
	// project's tracking container (public events name it).
	webhook, domain string
	// drain applies what the outboxes hold (events, orders) to ClickHouse, as a worker does.
	drain   func()
	project platform.Project
	empty   platform.Project
	// today is the current date in the project's zone; fallbackStart to fallbackEnd are dates
	// whose facts are only in the daily table (a query at hour granularity falls back to it).
	today, fallbackStart, fallbackEnd string
}

// startServer builds and serves the API, then seeds it: generated ad facts of the last 14 days
// (three networks, in BRL, USD and EUR), two orders sent through the order webhook and applied
// by the outbox drainer, and daily-only facts 40 to 31 days ago.
func startServer(t *testing.T) *fixture {
	t.Helper()
	ctx := context.Background()
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	clk := clock.Real{}
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	sys := wire.Build(config.Config{ClickHouseURL: ch.URL, PostgresURL: pg.URL, JWTSecret: "dashboard-test-secret-0123456789abcdef",
		BaseURL: "http://127.0.0.1", RateLimits: "on"}, pg.Pool, ch.Conn, wire.Options{Clock: clk, Logger: log})
	t.Cleanup(sys.Close)
	store, app := sys.Store, api.New(sys)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln) //nolint:errcheck // ends with Shutdown
	t.Cleanup(func() { _ = app.Shutdown() })
	f := &fixture{t: t, url: "http://" + ln.Addr().String()}

	// Enterprise: a view's checks re-send each of the page's queries with the test's key, so a
	// test of several views and widths asks more than growth's 300 a minute of one key.
	ws := must(store.Workspaces.CreateWorkspace(ctx, "Dashboard Co", platform.TierEnterprise))
	f.project = must(store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "Acme Store", Currency: "BRL", Timezone: zone}))
	f.empty = must(store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "Empty Shop", Currency: "USD", Timezone: "UTC"}))
	f.key = must(store.Keys.CreateAPIKey(ctx, ws.ID, "dashboard", []string{auth.ScopeDataRead}, nil)).Token
	f.email, f.password = "owner@dashboard.test", "dashboard-owner-password"
	must(store.Users.CreateUser(ctx, f.email, "Owner", f.password, ws.ID, platform.RoleOwner))
	conns, accounts := map[string]string{}, map[string]string{}
	for kind, account := range map[string]string{platform.KindAlpha: alphaAccount, platform.KindBeta: "5551", platform.KindGamma: "5552"} {
		c := must(store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: f.project.ID, Kind: kind, Name: kind, SourceID: account}))
		conns[kind], accounts[kind] = c.ID, account
	}
	custom := must(store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: f.project.ID, Kind: platform.KindCustom, Name: "Checkout"}))
	f.webhook = "/v2/tracking/generic?k=" + custom.WebhookKey
	f.domain = "acme.example"
	must(store.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: f.project.ID, Domain: f.domain}))

	loc := must(time.LoadLocation(zone))
	now := time.Now().In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	f.today = today.Format(time.DateOnly)
	ds := must(enginetest.Generate(enginetest.Config{Seed: 6, Campaigns: 3, AdSets: 1, Ads: 2, FactChance: 0.3,
		Projects: []enginetest.ProjectSpec{{ID: f.project.ID, TimeZone: zone, Currency: "BRL", Start: today.AddDate(0, 0, -34), Days: 35,
			AccountCurrencies: map[string]string{platform.KindBeta: "USD", platform.KindGamma: "EUR"},
			Connections:       conns, Accounts: accounts, SyncedAt: now}}}))
	if err := ds.Write(ctx, ch.Conn); err != nil {
		t.Fatal(err)
	}
	saveObjects(t, pg.Pool, ds.Entities, conns)

	for i, cents := range []int64{129_990, 45_050} {
		at := now.AddDate(0, 0, -2).Add(time.Duration(i) * time.Hour).UTC().Format(time.RFC3339)
		f.post(f.webhook, "", map[string]any{"transaction": map[string]any{
			"id": fmt.Sprintf("order-%d", i), "status": "approved", "value": cents, "currency": "BRL", "created_at": at, "updated_at": at,
			"utm": map[string]string{"utm_source": "alpha", "utm_campaign": "Sale|" + alphaAccount + "_c0",
				"utm_medium": "Broad|" + alphaAccount + "_c0_s0", "utm_content": "Video|" + orderedAd},
		}})
	}
	f.drain = func() { apifixture.Drain(t, sys) }
	f.drain()

	var daily []facts.Fact
	for d := 40; d > 30; d-- {
		day := today.AddDate(0, 0, -d)
		daily = append(daily, facts.Fact{ProjectID: f.project.ID, Time: time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, loc), AdEntity: facts.AdEntity{Source: platform.KindAlpha, ConnectionID: conns[platform.KindAlpha], AccountID: alphaAccount, CampaignID: alphaAccount + "_c1", AdsetID: alphaAccount + "_c1_s0", AdID: alphaAccount + "_c1_s0_a0"}, Currency: "BRL", Values: facts.Values{facts.Spend: int64(10_000_000 + d*1_230_000), facts.Impressions: int64(1000 + d), facts.Clicks: int64(d)}})
	}
	if err := facts.InsertBatch(ctx, ch.Conn, facts.LandingDaily, loc, "daily-only", daily); err != nil {
		t.Fatal(err)
	}
	f.fallbackStart = today.AddDate(0, 0, -40).Format(time.DateOnly)
	f.fallbackEnd = today.AddDate(0, 0, -31).Format(time.DateOnly)
	return f
}

// saveObjects stores the generated entities as a sync stores the objects of each network's
// connection (conns by source): attribution reads them there.
func saveObjects(t *testing.T, pool *pgxpool.Pool, entities []facts.Entity, conns map[string]string) {
	t.Helper()
	parent := map[string]string{}
	for _, e := range entities {
		parent[e.ID] = e.ParentID
	}
	bySource := map[string][]adsync.Object{}
	for _, e := range entities {
		campaign := ""
		switch e.Level {
		case "campaign":
			campaign = e.ID
		case "adset":
			campaign = e.ParentID
		case "ad":
			campaign = parent[e.ParentID]
		}
		bySource[e.Source] = append(bySource[e.Source], adsync.Object{Level: e.Level, ID: e.ID, ParentID: e.ParentID,
			CampaignID: campaign, Name: e.Name})
	}
	for source, objs := range bySource {
		if err := adsync.NewStore(pool).SaveObjects(context.Background(), conns[source], objs, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// post sends body to the server (with the key when key is not empty) and returns the answer's
// status and bytes; a call without a key (a webhook, a public event) must succeed. headers are
// further header names and values.
func (f *fixture) post(path, key string, body any, headers ...string) (int, []byte) {
	f.t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		f.t.Fatal(err)
	}
	req, err := http.NewRequest("POST", f.url+path, bytes.NewReader(b))
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if key == "" && resp.StatusCode != 200 {
		f.t.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
	}
	return resp.StatusCode, out
}

// answer is a POST /v3/query answer (or its error), with every number as the text the API wrote.
type answer struct {
	Data     []map[string]any `json:"data"`
	Currency string           `json:"currency"`
	Warnings []string         `json:"warnings"`
	HasMore  bool             `json:"has_more"`
	// TotalRows is there when the body asked for it.
	TotalRows *json.Number `json:"total_rows"`
	Error     *struct {
		Message string   `json:"message"`
		Details []string `json:"details"`
	} `json:"error"`
}

// query sends a body the page built (its JSON text) straight to POST /v3/query, through the Go
// client (mtk/client) without retries.
func (f *fixture) query(body string) answer {
	f.t.Helper()
	c := client.New(f.url, client.WithAPIKey(f.key), client.WithMaxRetries(0))
	out, err := c.RawRequest(context.Background(), "POST", "/v3/query", []byte(body))
	var a answer
	if err != nil {
		e, ok := client.AsError(err)
		if !ok {
			f.t.Fatalf("query %s: %v", body, err)
		}
		a.Error = &struct {
			Message string   `json:"message"`
			Details []string `json:"details"`
		}{e.Message, e.Details}
		return a
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if err := dec.Decode(&a); err != nil {
		f.t.Fatalf("query %s: %s", body, out)
	}
	return a
}

// text is an answer's value as the page keeps it: the number's text, a string, or "null".
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case json.Number:
		return x.String()
	case string:
		return x
	}
	return fmt.Sprint(v)
}
