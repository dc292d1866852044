package schema_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/attribution"
	"mtk/ingest/credits"
	"mtk/ingest/journeys"
	"mtk/ingest/orders"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/platform"
	"mtk/platform/utm"
	"mtk/schema"
)

// The last migrations of the release before the credit tables lost their window blocks
// (ClickHouse 0015, PostgreSQL 0036, issue 41).
const (
	blocksClickHouse = 14
	blocksPostgres   = 35
)

// shop is one database pair with a project, its checkout's webhook and the drainers that take
// an order state to credits, as `mtk serve` runs them.
type shop struct {
	t        *testing.T
	pool     *pgxpool.Pool
	ch       driver.Conn
	clk      *clock.Fake
	key      string
	orders   *orders.Service
	journeys *outbox.Drainer
	worker   *credits.Worker
	credits  *outbox.Drainer
}

func newShop(t *testing.T, pg testenv.PG, ch testenv.CH, clk *clock.Fake) *shop {
	ctx := context.Background()
	store := platform.New(pg.Pool, clk)
	ws, err := store.Workspaces.CreateWorkspace(ctx, "w", platform.TierDefault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "p", Currency: "BRL", Timezone: "America/Sao_Paulo"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: platform.KindCustom, Name: "Checkout"})
	if err != nil {
		t.Fatal(err)
	}
	return &shop{t: t, pool: pg.Pool, ch: ch.Conn, clk: clk, key: conn.WebhookKey,
		orders:   orders.New(pg.Pool, store.Connections, attribution.New(pg.Pool, clk, time.Hour), clk, outbox.Bounds{}),
		journeys: journeys.NewDrainer(pg.Pool, ch.Conn, clk, nil),
		worker:   credits.New(pg.Pool, ch.Conn, clk, nil),
		credits:  credits.NewDrainer(pg.Pool, ch.Conn, clk, nil)}
}

// send posts order states to the webhook, then runs the journey drainer and the credit worker,
// and the credit drainer when land is set: without it the credits wait in credit_outbox.
func (s *shop) send(land bool, states ...orders.Input) {
	s.t.Helper()
	ctx := context.Background()
	for _, in := range states {
		if err := s.orders.Upsert(ctx, s.key, in); err != nil {
			s.t.Fatal(err)
		}
	}
	steps := []func(context.Context) (int, error){s.journeys.RunOnce, s.worker.RunOnce}
	if land {
		steps = append(steps, s.credits.RunOnce)
	}
	for {
		n := 0
		for _, step := range steps {
			done, err := step(ctx)
			if err != nil {
				s.t.Fatal(err)
			}
			n += done
		}
		if n == 0 {
			return
		}
	}
}

// touch queues a touch of the lead the webhook made for email's customer, at, from an ad (ad
// set: a paid click) or from a channel alone, as the events service queues a tracked page view,
// and drains the journey outbox (which marks the lead for the credit worker).
func (s *shop) touch(email string, at time.Duration, ad bool, u utm.Params) {
	s.t.Helper()
	ctx := context.Background()
	var lead, project string
	if err := s.pool.QueryRow(ctx, `SELECT lead_id, project_id FROM orders WHERE customer->>'email' = $1 LIMIT 1`, email).
		Scan(&lead, &project); err != nil {
		s.t.Fatalf("the lead of %s: %v", email, err)
	}
	r := journeys.JourneyRow{ProjectID: project, TimeZone: "America/Sao_Paulo", Kind: journeys.JourneyTouch, LeadID: lead,
		Time: s.clk.Now().Add(at), EventID: fmt.Sprintf("ev-%s-%d", email, at), Origin: journeys.OriginEvent,
		Dims: facts.TouchDims{UTMSource: u.Source, UTMMedium: u.Medium, UTMCampaign: u.Campaign}}
	if ad {
		r.AdEntity = facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_ads", AccountID: "act_1", CampaignID: "c1", AdsetID: "s1", AdID: "a1"}
	}
	b := &pgx.Batch{}
	journeys.QueueJourneys(b, []journeys.JourneyRow{r}, s.clk.Now())
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, b).Close() }); err != nil {
		s.t.Fatal(err)
	}
}

// sums are a credit table's tx_revenue and tx_count per model, touch set, by_click, window,
// channel and ad: what the credits say whatever the database's ids.
func (s *shop) sums(table string) map[string][2]int64 {
	s.t.Helper()
	rows, err := s.ch.Query(context.Background(), `SELECT model, touches, by_click, window_days, utm_source, utm_campaign, ad_id,
		toInt64(sum(tx_revenue)), toInt64(sum(tx_count)) FROM `+table+`
		GROUP BY model, touches, by_click, window_days, utm_source, utm_campaign, ad_id`)
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][2]int64{}
	for rows.Next() {
		var model, touches, source, campaign, ad string
		var byClick, window uint8
		var v [2]int64
		if err := rows.Scan(&model, &touches, &byClick, &window, &source, &campaign, &ad, &v[0], &v[1]); err != nil {
			s.t.Fatal(err)
		}
		if v != [2]int64{} {
			out[fmt.Sprint(model, "/", touches, "/", byClick, "/", window, "/", source, "/", campaign, "/", ad)] = v
		}
	}
	if err := rows.Err(); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// A database the release before 0015/0036 left (credits in window blocks, some credited, some
// waiting in credit_outbox) is credited again from scratch by the upgrade: once it has run,
// every credit table holds exactly what a database that always had the new tables holds for the
// same order states, and each model credits exactly the approved orders' revenue.
func TestUpgradeRecreditsOnce(t *testing.T) {
	ctx := context.Background()
	start := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	oldPG, oldCH := testenv.EmptyPostgres(t), testenv.EmptyClickHouse(t)
	if _, err := schema.MigratePostgresTo(ctx, oldPG.Pool, blocksPostgres); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.MigrateClickHouseTo(ctx, oldCH.Conn, blocksClickHouse); err != nil {
		t.Fatal(err)
	}
	upgraded := newShop(t, oldPG, oldCH, clock.NewFake(start))
	fresh := newShop(t, testenv.Postgres(t), testenv.ClickHouse(t), clock.NewFake(start))

	value := func(v int64) *int64 { return &v }
	state := func(id, status string, v int64, at time.Duration, email string, u utm.Params) orders.Input {
		return orders.Input{Transaction: &orders.Transaction{ID: id, Status: status, Value: value(v),
			CreatedAt: start.Add(-3 * time.Hour).Format(time.RFC3339), UpdatedAt: start.Add(at).Format(time.RFC3339),
			Customer: orders.Customer{Email: email}, UTM: u}}
	}
	paid := utm.Params{Source: "facebook", Medium: "cpc", Campaign: "spring"}
	mail := utm.Params{Source: "newsletter", Medium: "email", Campaign: "march"}
	// Credited and landed before the upgrade: three buyers, one of them twice, and an order
	// naming nobody (no lead: credited by its own id).
	before := []orders.Input{
		state("o-1", orders.StatusApproved, 10_000, 0, "ana@x.com", paid),
		state("o-2", orders.StatusApproved, 25_050, 0, "bia@x.com", mail),
		state("o-3", orders.StatusApproved, 4_999, 0, "ana@x.com", utm.Params{}),
		state("o-4", orders.StatusApproved, 7_300, 0, "", paid),
		state("o-5", orders.StatusPending, 1_000, 0, "caio@x.com", mail),
	}
	// Credited but still in credit_outbox when the release stops: a refund without UTM (its
	// re-credit negates o-1's journey), a pending order approved, a new order.
	waiting := []orders.Input{
		state("o-1", orders.StatusRefunded, 10_000, time.Minute, "", utm.Params{}),
		state("o-5", orders.StatusApproved, 1_000, time.Minute, "caio@x.com", mail),
		state("o-6", orders.StatusApproved, 3_333, time.Minute, "dani@x.com", paid),
	}
	for _, s := range []*shop{upgraded, fresh} {
		s.send(true, before...)
		// Touches that reach mtk after the orders (a delayed event batch): the orders are
		// credited again, their old journeys negated.
		s.touch("ana@x.com", -5*time.Hour, true, paid)
		s.touch("bia@x.com", -6*time.Hour, false, mail)
		s.touch("bia@x.com", -4*time.Hour, true, paid)
		s.send(true)
		s.send(false, waiting...)
		s.touch("caio@x.com", -5*time.Hour, true, paid)
		s.touch("dani@x.com", -4*time.Hour, false, mail)
		s.send(false)
	}
	if n := upgraded.count("SELECT count(*) FROM credit_outbox"); n == 0 {
		t.Fatal("no credits wait in credit_outbox before the upgrade")
	}
	if _, err := schema.MigratePostgres(ctx, oldPG.Pool); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.MigrateClickHouse(ctx, oldCH.Conn); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*shop{upgraded, fresh} {
		s.send(true) // the upgraded server's first minutes: every buyer credited again
	}
	credited := fmt.Sprint(fresh.sums("credits_raw"))
	if !strings.Contains(credited, "/newsletter/march/:") || !strings.Contains(credited, "/facebook/spring/a1:") {
		t.Fatalf("the touches earned no credit: %s", credited)
	}
	// o-2, o-3, o-4, o-5, o-6 approved; o-1 refunded.
	const approved = (25_050 + 4_999 + 7_300 + 1_000 + 3_333) * facts.MicrosPerMinor
	for _, table := range []string{"credits_raw", "credits_hourly", "credits_daily"} {
		got, want := upgraded.sums(table), fresh.sums(table)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s after the upgrade:\n%v\nwant (a database that always had the new tables):\n%v", table, got, want)
		}
	}
	if t.Failed() {
		return
	}
	// Each model, touch set and by_click credits every approved order whole, every window's
	// deltas summed (the unattributed part included).
	sum := map[string]int64{}
	for k, v := range upgraded.sums("credits_raw") {
		set := strings.SplitN(k, "/", 4)
		sum[strings.Join(set[:3], "/")] += v[0]
	}
	if len(sum) == 0 {
		t.Fatal("no credits after the upgrade")
	}
	for set, rev := range sum {
		if rev != approved {
			t.Errorf("%s credits %d micros of revenue, want the approved orders' %d", set, rev, approved)
		}
	}
}

func (s *shop) count(sql string) int {
	s.t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}
