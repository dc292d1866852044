package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/api"
	"mtk/engine/enginetest"
	"mtk/ingest/events"
	"mtk/ingest/factstream"
	"mtk/ingest/outbox"
	"mtk/ingest/pairs"
	"mtk/internal/adsim"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

// scaleWorld is mtk over one ClickHouse layout: one server, or the two-shard test cluster.
type scaleWorld struct {
	name    string
	st      stores
	app     *fiber.App
	cluster testenv.Cluster // the shards, for the cluster world
	tenants []scaleTenant
}

// scaleTenant is one simulated ad account's workspace and project.
type scaleTenant struct {
	project platform.Project
	key     string // data:read and tracking:write
}

// trafficDays is how many days of events and orders each project gets.
const trafficDays = 3

// newScaleWorld migrates fresh databases (the cluster's with `mtk migrate --cluster`), then
// feeds them through mtk: a full sync of each simulated account into its own project, a few
// days of events and orders through the HTTP routes, the fact outbox drained, exchange rates.
func newScaleWorld(t *testing.T, cluster string, sim *adsim.Sim, simURL string, clk *clock.Fake) *scaleWorld {
	t.Helper()
	ctx := context.Background()
	w := &scaleWorld{name: "one server"}
	pg := testenv.Postgres(t)
	t.Setenv("MTK_POSTGRES_URL", pg.URL)
	t.Setenv("MTK_DATA", t.TempDir())
	t.Setenv("MTK_JWT_SECRET", "")
	t.Setenv("MTK_BASE_URL", "")
	t.Setenv("MTK_RATE_LIMITS", "off")
	t.Setenv("MTK_CLICKHOUSE_CLUSTER", "")
	if cluster == "" {
		t.Setenv("MTK_CLICKHOUSE_URL", testenv.ClickHouse(t).URL)
	} else {
		w.name = "cluster " + cluster
		w.cluster = testenv.ClickHouseClusterDatabase(t)
		t.Setenv("MTK_CLICKHOUSE_URL", w.cluster.URL)
		start := time.Now()
		if out, errOut, code := cli(t, "migrate", "--cluster", cluster); code != 0 || !strings.Contains(out, cluster) {
			t.Fatalf("mtk migrate --cluster: exit %d: %s%s", code, out, errOut)
		}
		t.Logf("%s: mtk migrate --cluster took %v", w.name, time.Since(start).Round(time.Millisecond))
		t.Setenv("MTK_CLICKHOUSE_CLUSTER", cluster)
	}
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if w.st, err = openStores(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.st.Close)
	sys, err := wire.Build(cfg, w.st.pg, w.st.ch, wire.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	app := api.New(sys.API())
	t.Cleanup(sys.Close)
	w.app = app
	store, syncer := sys.Store, sys.Syncer
	for i, a := range sim.Accounts() {
		w.tenants = append(w.tenants, w.addTenant(t, store, syncer, i, a, simURL, clk.Now()))
	}
	ds, err := enginetest.Generate(enginetest.Config{Seed: 1, Projects: []enginetest.ProjectSpec{{ID: "rates",
		TimeZone: "UTC", Currency: "USD", Start: clk.Now().AddDate(0, 0, -45), Days: 47}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := enginetest.InsertRates(ctx, w.st.ch, ds.Rates); err != nil {
		t.Fatal(err)
	}
	for _, d := range []*outbox.Drainer{events.NewDrainer(w.st.pg, w.st.ch, clk, nil), factstream.NewDrainer(w.st.pg, w.st.ch, clk, nil)} {
		for {
			n, err := d.RunOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
	}
	return w
}

// addTenant makes account a's workspace, project (in its currency and zone), connections,
// container and key, syncs the account and sends the project's traffic. In the cluster, the
// project is made again until it lands on shard i%2, so that both shards hold projects.
func (w *scaleWorld) addTenant(t *testing.T, store *platform.Services, syncer *adsync.Syncer, i int, a adsim.AccountInfo, simURL string, now time.Time) scaleTenant {
	t.Helper()
	ctx := context.Background()
	ws, err := store.Workspaces.CreateWorkspace(ctx, fmt.Sprintf("tenant %d", i), platform.TierGrowth)
	if err != nil {
		t.Fatal(err)
	}
	var p platform.Project
	for try := 0; ; try++ {
		if p, err = store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: a.Name,
			Currency: a.Currency, Timezone: a.TimeZone}); err != nil {
			t.Fatal(err)
		}
		if w.cluster.Conn == nil || w.shardOf(t, p.ID) == i%2 {
			break
		}
		if try == 50 {
			t.Fatalf("no project id of 50 hashes to shard %d", i%2+1)
		}
	}
	conn, err := store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: string(a.Network), Name: a.Name,
		SourceID: a.ID, APIBaseURL: networks.APIRoot(string(a.Network), simURL), AccessToken: a.AccessToken})
	if err != nil {
		t.Fatal(err)
	}
	custom, err := store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: platform.KindCustom, Name: "Checkout"})
	if err != nil {
		t.Fatal(err)
	}
	domain := fmt.Sprintf("shop%d.example", i)
	if _, err := store.Containers.CreateContainer(ctx, platform.ContainerInput{ProjectID: p.ID, Domain: domain}); err != nil {
		t.Fatal(err)
	}
	key, err := store.Keys.CreateAPIKey(ctx, ws.ID, "scale", []string{auth.ScopeDataRead, auth.ScopeTrackingWrite}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := syncer.Run(ctx, conn, adsync.Options{}); err != nil {
		t.Fatalf("%s: sync %s: %v", w.name, a.Network, err)
	}
	loc, err := time.LoadLocation(p.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	ads, err := demoAds(ctx, w.st.ch, adsync.NewStore(w.st.pg), p.ID, []platform.Connection{conn})
	if err != nil || len(ads) == 0 {
		t.Fatalf("%s: %d ads, %v", w.name, len(ads), err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, trafficDays)
	for day := range trafficDays {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := trafficSender{app: w.app, domain: domain, trackingKey: key.Token, webhook: "/v2/tracking/generic?k=" + custom.WebhookKey,
				ads: ads, currency: p.Currency, loc: loc, r: rand.New(rand.NewSource(int64(i*100 + day)))}
			errs <- s.sendDay(day, now)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
	}
	return scaleTenant{project: p, key: key.Token}
}

// shardOf is the shard index (0 or 1) that the Distributed tables send a project's rows to.
func (w *scaleWorld) shardOf(t *testing.T, projectID string) int {
	t.Helper()
	var n uint64
	if err := w.cluster.Conn.QueryRow(context.Background(), "SELECT toUInt64(cityHash64(?) % 2)", projectID).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// query posts a query body (with the tenant's project) and returns the answer's body.
func (w *scaleWorld) query(t *testing.T, tn scaleTenant, body string) string {
	t.Helper()
	body = strings.Replace(body, "{", `{"project_id":"`+tn.project.ID+`",`, 1)
	req := httptest.NewRequest("POST", "/v3/query", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tn.key)
	resp, err := w.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %s answered %d: %s", w.name, body, resp.StatusCode, out)
	}
	return string(out)
}

// count runs a count query.
func count(t *testing.T, conn driver.Conn, sql string) uint64 {
	t.Helper()
	var n uint64
	if err := conn.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// scaleQueries cover the engine's shapes: totals, levels with names, every table (raw at 15
// minutes, hourly, daily), currency conversion, name filters (subqueries on entities on each
// shard), metric filters, ordering and paging.
var scaleQueries = []string{
	`{"fields":["spend","impressions","clicks","reach","tx_revenue","tx_count","page_views","leads","initiate_checkout","roas","cpa","profit"]}`,
	`{"fields":["spend","clicks","ctr","cpc","tx_revenue","leads"],"metadata":{"level":"campaign"},"order":{"spend":"desc"}}`,
	`{"fields":["spend","impressions","tx_count_total","page_views"],"time":{"start":"2026-03-03","end":"2026-03-10","granularity":"day"},"metadata":{"level":"ad"}}`,
	`{"fields":["spend","clicks","page_views","leads"],"time":{"start":"2026-03-08","end":"2026-03-10","granularity":"hour"}}`,
	`{"fields":["page_views","leads","tx_count","spend"],"time":{"start":"2026-03-10T00:00:00","end":"2026-03-10T15:00:00","granularity":"15min"}}`,
	`{"fields":["spend","tx_revenue","roas","profit","aov"],"metadata":{"level":"adset","convert_to_currency":"USD"}}`,
	`{"fields":["spend","tx_revenue"],"time":{"start":"2026-02-16","end":"2026-03-10","granularity":"week"},"metadata":{"convert_to_currency":"EUR"}}`,
	`{"fields":["spend","clicks","leads"],"metadata":{"level":"campaign"},"filters":[{"member":"campaign_name","operator":"contains","values":["a"]},{"member":"ad_name","operator":"notContains","values":["1"]}]}`,
	`{"fields":["spend","ctr","tx_revenue"],"metadata":{"level":"ad"},"filters":[{"member":"spend","operator":"gt","values":["1"]}],"order":{"ctr":"asc"},"limit":3,"offset":1}`,
	`{"fields":["spend","tx_revenue","cpl"],"time":{"start":"2025-12-01","end":"2026-03-10","granularity":"month"}}`,
}

// TestClusterAnswersLikeOneServer feeds the same simulated accounts, events and orders through
// mtk into one ClickHouse server and into the two-shard test cluster (migrated with `mtk
// migrate --cluster`), checks that both shards hold rows and that the cluster holds exactly the
// rows of the one server, and that every query answers the same, byte for byte. It logs the
// figures: rows per shard and query times.
func TestClusterAnswersLikeOneServer(t *testing.T) {
	now := time.Date(2026, 3, 10, 15, 4, 0, 0, time.UTC)
	clk := clock.NewFake(now)
	sim, err := adsim.New(adsim.Config{Seed: 11, Clock: clk, Days: 31, AccountsPerNetwork: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	start := time.Now()
	one := newScaleWorld(t, "", sim, srv.URL, clk)
	t.Logf("one server: fed in %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	two := newScaleWorld(t, testenv.ClusterName, sim, srv.URL, clk)
	t.Logf("%s: fed in %v", two.name, time.Since(start).Round(time.Millisecond))

	for _, table := range []string{"facts_raw", "facts_hourly_in", "facts_daily_in", "events", "business_raw", "fx_rates"} {
		var perShard []uint64
		var sum uint64
		for _, sh := range two.cluster.Shards {
			n := count(t, sh, "SELECT count() FROM "+table+"_local")
			perShard, sum = append(perShard, n), sum+n
		}
		want := count(t, one.st.ch, "SELECT count() FROM "+table)
		t.Logf("%-16s one server %6d rows; cluster %6d = shard 1 %6d + shard 2 %6d", table, want, sum, perShard[0], perShard[1])
		if sum != want || (table != "fx_rates" && (perShard[0] == 0 || perShard[1] == 0)) {
			t.Errorf("%s: shards hold %v, one server %d", table, perShard, want)
		}
	}

	// The business rollups (summed as they merge) hold on the shards what they hold on one server.
	for _, table := range []string{"business_hourly", "business_daily"} {
		sums := "SELECT toString(tuple(toInt64(sum(tx_revenue)), toInt64(sum(tx_units)), toInt64(sum(page_views)), toInt64(sum(leads)))) FROM "
		var want, got string
		if err := one.st.ch.QueryRow(context.Background(), sums+table).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := two.st.ch.QueryRow(context.Background(), sums+table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want || want == "(0,0,0,0)" {
			t.Errorf("%s: cluster sums %s, one server %s", table, got, want)
		}
	}

	pairBackfillOnCluster(t, one, two)

	var oneTime, twoTime time.Duration
	for i := range one.tenants {
		for _, q := range scaleQueries {
			t0 := time.Now()
			want := one.query(t, one.tenants[i], q)
			t1 := time.Now()
			got := two.query(t, two.tenants[i], q)
			oneTime, twoTime = oneTime+t1.Sub(t0), twoTime+time.Since(t1)
			if got != want {
				t.Errorf("tenant %d %s\ncluster:    %s\none server: %s", i, q, got, want)
			}
		}
		var totals struct {
			Data []map[string]any `json:"data"`
		}
		if err := json.Unmarshal([]byte(one.query(t, one.tenants[i], scaleQueries[0])), &totals); err != nil || len(totals.Data) != 1 {
			t.Fatalf("totals %+v, %v", totals, err)
		}
		if row := totals.Data[0]; row["spend"] == 0.0 || row["page_views"] == 0.0 || row["tx_revenue"] == 0.0 {
			t.Errorf("tenant %d has no spend, page views or revenue: %v", i, row)
		}
	}
	n := len(one.tenants) * len(scaleQueries)
	t.Logf("%d queries through the API: one server %v (%v each), cluster %v (%v each)", n,
		oneTime.Round(time.Millisecond), (oneTime / time.Duration(n)).Round(time.Microsecond),
		twoTime.Round(time.Millisecond), (twoTime / time.Duration(n)).Round(time.Microsecond))
}

// pairBackfillOnCluster puts the cluster's business rows back as ClickHouse 0017 finds them
// (pair_rollups 0 on every shard, the pair rollups empty, every project waiting), runs the pair
// backfill over the Distributed tables, and checks that each shard's rollups then sum to what
// the one server's views wrote.
func pairBackfillOnCluster(t *testing.T, one, two *scaleWorld) {
	t.Helper()
	ctx := context.Background()
	onCluster := " ON CLUSTER `" + testenv.ClusterName + "`"
	if err := two.st.ch.Exec(ctx, "ALTER TABLE business_raw_local"+onCluster+" UPDATE pair_rollups = 0 WHERE pair_rollups = 1"); err != nil {
		t.Fatal(err)
	}
	for _, sh := range two.cluster.Shards {
		for deadline := time.Now().Add(time.Minute); count(t, sh, "SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0") > 0; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the mutation of business_raw_local still runs after a minute")
			}
		}
	}
	for _, table := range pairs.Tables {
		if err := two.st.ch.Exec(ctx, "TRUNCATE TABLE "+table+"_local"+onCluster); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := two.st.pg.Exec(ctx, "INSERT INTO pair_backfill (project_id) SELECT id FROM projects"); err != nil {
		t.Fatal(err)
	}
	b := &pairs.Backfill{Pool: two.st.pg, CH: two.st.ch, Cluster: testenv.ClusterName}
	if n, err := b.Run(ctx); err != nil || n < len(two.tenants) {
		t.Fatalf("pair backfill on the cluster: %d projects, %v", n, err)
	}
	sums := "SELECT toString(tuple(count() > 0, toInt64(sum(tx_revenue)), toInt64(sum(tx_units)), toInt64(sum(page_views)), toInt64(sum(leads)))) FROM "
	for _, table := range pairs.Tables {
		var want, got string
		if err := one.st.ch.QueryRow(ctx, sums+table).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if err := two.st.ch.QueryRow(ctx, sums+table).Scan(&got); err != nil {
			t.Fatal(err)
		}
		perShard := make([]uint64, len(two.cluster.Shards))
		for i, sh := range two.cluster.Shards {
			perShard[i] = count(t, sh, "SELECT count() FROM "+table+"_local WHERE backfilled = 1")
		}
		t.Logf("%s backfilled on the cluster: %s (rows per shard %v), one server's views: %s", table, got, perShard, want)
		if got != want || strings.HasPrefix(want, "(0") || perShard[0] == 0 || perShard[1] == 0 {
			t.Errorf("%s: cluster backfilled %s (per shard %v), one server %s", table, got, perShard, want)
		}
	}
}
