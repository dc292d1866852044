package engine_test

import (
	"context"
	"flag"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

var benchRows = flag.Int("bench.rows", 1_000_000, "raw ad-fact rows BenchmarkQuery writes first")

// benchAdFacts writes the benchmarks' project (90 days of São Paulo, accounts in three
// currencies) and -bench.rows raw ad facts over its days.
func benchAdFacts(ctx context.Context, b *testing.B, conn driver.Conn) *enginetest.Dataset {
	ds, err := enginetest.Generate(enginetest.Config{Seed: 9, Campaigns: 5, AdSets: 4, Ads: 5, FactChance: 0.01,
		Projects: []enginetest.ProjectSpec{{ID: "prj_bench", TimeZone: "America/Sao_Paulo", Currency: "BRL",
			Start: day(2024, 1, 1), Days: 90, AccountCurrencies: map[string]string{"beta_ads": "USD", "gamma_ads": "EUR"}}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := ds.Write(ctx, conn); err != nil {
		b.Fatal(err)
	}
	if err := ds.StreamAdFacts(ctx, conn, 1, *benchRows); err != nil {
		b.Fatal(err)
	}
	return ds
}

// BenchmarkQuery writes -bench.rows raw ad facts over 90 days, then times typical queries:
// go test ./engine -run XXX -bench Query -bench.rows 10000000
func BenchmarkQuery(b *testing.B) {
	ch := testenv.ClickHouse(b)
	ctx := context.Background()
	start := time.Now()
	ds := benchAdFacts(ctx, b, ch.Conn)
	b.Logf("wrote %d raw rows in %v", *benchRows, time.Since(start).Round(time.Millisecond))
	p := ds.Projects[0]
	scope := engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.TimeZone, SubHour: true, ConnectionIDs: p.ConnectionIDs}
	svc := engine.New(ch.Conn, engine.Options{Clock: clock.NewFake(time.Date(2024, 3, 31, 12, 0, 0, 0, time.UTC))})
	for _, q := range []struct{ name, body string }{
		{"totals_30d_daily", `{"project_id":"prj_bench","fields":["spend","impressions","clicks","ctr","cpc","roas"]}`},
		{"day_90d_campaign", `{"project_id":"prj_bench","fields":["spend","clicks","cpm"],"time":{"start":"2024-01-01","end":"2024-03-30","granularity":"day"},"metadata":{"level":"campaign","convert_to_currency":"USD"}}`},
		{"hour_7d_hourly", `{"project_id":"prj_bench","fields":["spend","impressions"],"time":{"start":"2024-03-01","end":"2024-03-07","granularity":"hour"}}`},
		{"5min_2d_raw_ad", `{"project_id":"prj_bench","fields":["spend","clicks"],"time":{"start":"2024-03-01","end":"2024-03-02","granularity":"5min"},"metadata":{"level":"ad"},"limit":1000}`},
		{"totals_raw_90d_filtered", `{"project_id":"prj_bench","fields":["spend","ctr"],"time":{"start":"2024-01-01T00:07:00","end":"2024-03-30T00:00:00"},"filters":[{"member":"campaign_name","operator":"contains","values":["a1"]}]}`},
	} {
		in := mustInput(b, q.body)
		b.Run(q.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := svc.Query(ctx, scope, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCompile compiles every golden query (and completes those with day spans): the work
// each query does before it reaches ClickHouse or the answer cache.
// go test ./engine -run XXX -bench Compile -benchmem
func BenchmarkCompile(b *testing.B) {
	ins := make([]engine.QueryInput, len(goldenCases))
	for i, tc := range goldenCases {
		ins[i] = mustInput(b, tc.body)
	}
	for b.Loop() {
		for i, tc := range goldenCases {
			c, err := engine.Compile(tc.scope, ins[i], testNow)
			if err != nil {
				b.Fatal(err)
			}
			if tc.days != nil {
				c.WithDaySpans(tc.days)
			}
		}
	}
}

// BenchmarkBusinessQuery writes -bench.rows business facts (events and orders over 90 days,
// 5,000 utm_content values) and as many raw ad facts over the same days, copies the business
// events into the events table, then times the traffic-source mix (one dimension, two, and one
// by a level) against the ad-hierarchy queries of the same ranges and against asking the events
// table directly, reporting p50 and p99 per query:
// go test ./engine -run XXX -bench BusinessQuery -bench.rows 10000000
func BenchmarkBusinessQuery(b *testing.B) {
	ch := testenv.ClickHouse(b)
	ctx := context.Background()
	start := time.Now()
	ds := benchAdFacts(ctx, b, ch.Conn)
	bp := enginetest.BusinessProject{ID: "prj_bench", TimeZone: "America/Sao_Paulo", Currency: "BRL", Start: day(2024, 1, 1),
		Days: 90, Foreign: []string{"USD"}, Contents: 5000}
	if err := enginetest.StreamBusiness(ctx, ch.Conn, bp, 2, *benchRows); err != nil {
		b.Fatal(err)
	}
	// The same events as the business family's, in the table tracking writes.
	if err := ch.Conn.Exec(ctx, `INSERT INTO events (project_id, event_id, ts, received_at, name, source, utm_source, utm_medium,
		utm_campaign, utm_content, utm_term, campaign_id, ad_id, page_url, referrer, user_agent)
		SELECT project_id, toString(outbox_id), ts, ts, multiIf(page_views != 0, 'PageView', leads != 0, 'Lead', 'InitiateCheckout'),
		source, utm_source, utm_medium, utm_campaign, utm_content, utm_term, campaign_id, ad_id,
		concat('https://shop.example', landing_path), concat('https://', referrer_host, '/'), device
		FROM business_raw WHERE kind = 'event'`); err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d raw ad facts and %d business facts in %v", *benchRows, *benchRows, time.Since(start).Round(time.Millisecond))
	p := ds.Projects[0]
	scope := engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.TimeZone, SubHour: true, ConnectionIDs: p.ConnectionIDs}
	svc := engine.New(ch.Conn, engine.Options{Clock: clock.NewFake(time.Date(2024, 3, 31, 12, 0, 0, 0, time.UTC))})
	const r30, r90 = `"start":"2024-03-01","end":"2024-03-30"`, `"start":"2024-01-01","end":"2024-03-30"`
	for _, q := range []struct{ name, body string }{
		{"utm_source_day_30d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r30 + `,"granularity":"day"},"metadata":{"dimensions":["utm_source"]}}`},
		{"campaign_day_30d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r30 + `,"granularity":"day"},"metadata":{"level":"campaign"}}`},
		{"utm_source_day_90d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r90 + `,"granularity":"day"},"metadata":{"dimensions":["utm_source"]}}`},
		{"campaign_day_90d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r90 + `,"granularity":"day"},"metadata":{"level":"campaign"}}`},
		// Two dimensions, and a dimension by a level: against the one-dimension queries above.
		{"utm_source_medium_day_30d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r30 + `,"granularity":"day"},"metadata":{"dimensions":["utm_source","utm_medium"]}}`},
		{"utm_source_medium_day_90d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r90 + `,"granularity":"day"},"metadata":{"dimensions":["utm_source","utm_medium"]}}`},
		{"utm_source_campaign_day_30d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r30 + `,"granularity":"day"},"metadata":{"level":"campaign","dimensions":["utm_source"]}}`},
		{"utm_source_campaign_day_90d", `{"project_id":"prj_bench","fields":["page_views","leads","tx_revenue","tx_count"],"time":{` + r90 + `,"granularity":"day"},"metadata":{"level":"campaign","dimensions":["utm_source"]}}`},
		{"product_week_90d", `{"project_id":"prj_bench","fields":["tx_revenue","tx_units","tx_count"],"time":{` + r90 + `,"granularity":"week"},"metadata":{"dimensions":["product_name"]}}`},
		{"campaign_week_90d", `{"project_id":"prj_bench","fields":["tx_revenue","tx_count"],"time":{` + r90 + `,"granularity":"week"},"metadata":{"level":"campaign"}}`},
	} {
		in := mustInput(b, q.body)
		b.Run(q.name, func(b *testing.B) {
			timed(b, func() error { _, err := svc.Query(ctx, scope, in); return err })
		})
	}
	// The same question asked of the events table directly: page views and leads by day and
	// utm_source (its orders are in PostgreSQL; here only the events' part).
	for _, days := range []struct {
		name       string
		start, end time.Time
	}{{"events_utm_source_day_30d", time.Date(2024, 3, 1, 3, 0, 0, 0, time.UTC), time.Date(2024, 3, 31, 3, 0, 0, 0, time.UTC)},
		{"events_utm_source_day_90d", time.Date(2024, 1, 1, 3, 0, 0, 0, time.UTC), time.Date(2024, 3, 31, 3, 0, 0, 0, time.UTC)}} {
		b.Run(days.name, func(b *testing.B) {
			timed(b, func() error {
				rows, err := ch.Conn.Query(ctx, `SELECT toDate(ts, 'America/Sao_Paulo') AS d, utm_source, countIf(name = 'PageView'),
					countIf(name = 'Lead') FROM events WHERE project_id = ? AND ts >= ? AND ts < ? GROUP BY d, utm_source ORDER BY d, utm_source`,
					"prj_bench", days.start, days.end)
				if err != nil {
					return err
				}
				for rows.Next() {
				}
				rows.Close()
				return rows.Err()
			})
		})
	}
}

// timed runs f b.N times and reports the p50 and p99 of its durations.
func timed(b *testing.B, f func() error) {
	ds := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		s := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(s))
	}
	slices.Sort(ds)
	at := func(q float64) float64 { return float64(ds[int(q*float64(len(ds)-1))].Microseconds()) / 1000 }
	b.ReportMetric(at(0.5), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
}
