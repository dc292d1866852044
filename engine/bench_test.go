package engine_test

import (
	"context"
	"flag"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

var benchRows = flag.Int("bench.rows", 1_000_000, "raw ad-fact rows BenchmarkQuery writes first")

// BenchmarkQuery writes -bench.rows raw ad facts over 90 days, then times typical queries:
// go test ./engine -run XXX -bench Query -bench.rows 10000000
func BenchmarkQuery(b *testing.B) {
	ch := testenv.ClickHouse(b)
	ctx := context.Background()
	ds, err := enginetest.Generate(enginetest.Config{Seed: 9, Campaigns: 5, AdSets: 4, Ads: 5, FactChance: 0.01,
		Projects: []enginetest.ProjectSpec{{ID: "prj_bench", TimeZone: "America/Sao_Paulo", Currency: "BRL",
			Start: day(2024, 1, 1), Days: 90, AccountCurrencies: map[string]string{"beta_ads": "USD", "gamma_ads": "EUR"}}}})
	if err != nil {
		b.Fatal(err)
	}
	if err := ds.Write(ctx, ch.Conn); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := ds.StreamAdFacts(ctx, ch.Conn, 1, *benchRows); err != nil {
		b.Fatal(err)
	}
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
