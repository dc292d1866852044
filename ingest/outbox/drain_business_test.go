package outbox_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/factstream"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// Business rows share the fact outbox with facts_raw rows: each lands in its own table with all
// its keys, its rollups follow, a drainer killed after the insert and run again doubles nothing,
// and the project's data version of the day moves.
func TestDrainerBusinessRows(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 2, 30, 0, 0, time.UTC)) // 23:30 on the 9th in São Paulo
	keys := facts.BizKeys{Kind: facts.BizItem, AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1", AdsetID: "s1", AdID: "a1"}, UTMSource: "email", UTMMedium: "newsletter", UTMCampaign: "Sale|c1",
		UTMContent: "hero", UTMTerm: "shoes", ReferrerHost: "mail.google.com", LandingPath: "/p/1", Device: "mobile",
		ProductID: "sku-1", ProductName: "Shoe", PaymentMethod: "pix", CustomerType: "new", Currency: "BRL"}
	var vals facts.Values
	for i, m := range facts.BusinessFamily.Measures {
		vals[m] = int64(i + 1)
	}
	biz := factstream.BizRow{TimeZone: "America/Sao_Paulo", BizFact: facts.BizFact{ProjectID: "prj_b", Time: clk.Now(), BizKeys: keys, Values: vals}}
	fact := factstream.FactRow{ProjectID: "prj_b", TimeZone: "America/Sao_Paulo", Time: clk.Now(), AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL",
		Values: facts.Values{facts.TxRevenue: 7, facts.TxCount: 1, facts.TxCountTotal: 1}}
	err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		factstream.QueueBiz(w, []factstream.BizRow{biz, biz.Negate(), biz}, clk.Now())
		factstream.QueueFacts(w, []factstream.FactRow{fact}, clk.Now())
		factstream.QueueBiz(w, nil, clk.Now())
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	d := factstream.NewDrainer(pg.Pool, ch.Conn, clk, nil)
	outbox.SetCrash(d, killAt("mark"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("killed run: %v", err)
	}
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 4 {
		t.Fatalf("rerun: %d %v", n, err)
	}
	var rows, factRows uint64
	var got facts.BizFact
	var hour, day time.Time
	dest := append(append([]any{&rows, &got.Time, &hour, &day}, got.BizKeys.Dest()...), got.Values.Dest(facts.BusinessFamily.Measures)...)
	err = ch.Conn.QueryRow(ctx, `SELECT count(), any(ts), any(hour), any(day), any(kind), any(source), any(connection_id),
		any(account_id), any(campaign_id), any(adset_id), any(ad_id), any(utm_source), any(utm_medium), any(utm_campaign),
		any(utm_content), any(utm_term), any(referrer_host), any(landing_path), any(device), any(product_id),
		any(product_name), any(payment_method), any(customer_type), toString(any(currency)),
		sum(page_views), sum(leads), sum(initiate_checkout), sum(tx_revenue), sum(tx_revenue_net), sum(tx_count),
		sum(tx_count_total), sum(tx_count_pending), sum(tx_count_refunded), sum(tx_product_costs), sum(tx_units)
		FROM business_raw WHERE project_id = 'prj_b'`).Scan(dest...)
	if err != nil {
		t.Fatal(err)
	}
	if rows != 3 || got.BizKeys != keys || got.Values != vals {
		t.Fatalf("business_raw: %d rows, %+v %v; want 3, %+v %v", rows, got.BizKeys, got.Values, keys, vals)
	}
	if !day.Equal(time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)) || !hour.Equal(time.Date(2026, 3, 10, 2, 0, 0, 0, time.UTC)) {
		t.Fatalf("hour %v day %v", hour, day)
	}
	if err := ch.Conn.QueryRow(ctx, "SELECT count() FROM facts_raw WHERE project_id = 'prj_b'").Scan(&factRows); err != nil || factRows != 1 {
		t.Fatalf("facts_raw: %d rows %v", factRows, err)
	}
	for _, rollup := range []string{"business_hourly", "business_daily"} {
		var units, revenue int64
		if err := ch.Conn.QueryRow(ctx, "SELECT sum(tx_units), sum(tx_revenue) FROM "+rollup+" WHERE project_id = 'prj_b' AND product_id = 'sku-1'").
			Scan(&units, &revenue); err != nil || units != vals[facts.TxUnits] || revenue != vals[facts.TxRevenue] {
			t.Fatalf("%s: units %d revenue %d %v", rollup, units, revenue, err)
		}
	}
	var version int64
	if err := pg.Pool.QueryRow(ctx, "SELECT count(*) FROM data_versions WHERE project_id = 'prj_b' AND kind = 'facts' AND day = '2026-03-09'").
		Scan(&version); err != nil || version != 1 {
		t.Fatalf("data version of the local day: %d %v", version, err)
	}
	if left := outboxLeft(t, pg.Pool); left != (outboxCounts{}) {
		t.Fatalf("left in PostgreSQL: %+v", left)
	}
}

// Drained in partitions (by project) and killed after an insert, business and fact rows of
// several projects land once each.
func TestPartitionedDrainBusinessRows(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		for p := range 6 {
			prj := "prj_p" + string(rune('a'+p))
			biz := factstream.BizRow{TimeZone: "UTC", BizFact: facts.BizFact{ProjectID: prj, Time: clk.Now(),
				BizKeys: facts.BizKeys{Kind: facts.BizEvent, Device: "mobile", Currency: "BRL"}, Values: facts.Values{facts.PageViews: 1}}}
			factstream.QueueBiz(w, []factstream.BizRow{biz, biz}, clk.Now())
			factstream.QueueFacts(w, []factstream.FactRow{{ProjectID: prj, TimeZone: "UTC", Time: clk.Now(), AdEntity: facts.AdEntity{Source: "alpha_ads"}, Currency: "BRL",
				Values: facts.Values{facts.PageViews: 1}}}, clk.Now())
		}
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	d := factstream.NewDrainer(pg.Pool, ch.Conn, clk, nil)
	d.Partitions = 3
	outbox.SetBatchSize(d, 2)
	outbox.SetCrash(d, killAt("mark"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("killed run: %v", err)
	}
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 18 {
		t.Fatalf("rerun: %d %v", n, err)
	}
	var views, projects, factViews uint64
	if err := ch.Conn.QueryRow(ctx, "SELECT toUInt64(sum(page_views)), uniqExact(project_id) FROM business_raw").Scan(&views, &projects); err != nil ||
		views != 12 || projects != 6 {
		t.Fatalf("business_raw: %d page views over %d projects, %v", views, projects, err)
	}
	if err := ch.Conn.QueryRow(ctx, "SELECT toUInt64(sum(page_views)) FROM facts_raw").Scan(&factViews); err != nil || factViews != 6 {
		t.Fatalf("facts_raw: %d page views, %v", factViews, err)
	}
}
