package engine_test

import (
	"context"
	"flag"
	"fmt"
	"slices"
	"testing"
	"time"

	"mtk/engine"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

var (
	benchOrders  = flag.Int("bench.orders", 1_000_000, "orders BenchmarkAttribution generates")
	benchTouches = flag.Int("bench.touches", 20_000_000, "touches BenchmarkAttribution generates")
	benchIters   = flag.Int("bench.iters", 20, "runs of each BenchmarkAttribution query, for p50 and p99")
)

// BenchmarkAttribution generates -bench.orders orders (also as reported facts on their ads) and
// -bench.touches touches of half as many leads over 100 days in ClickHouse (numbers(), so that
// 18.16 builds them in minutes), then times a campaign-by-day query of order metrics under every
// model on 30 and 90 days, reporting p50 and p99 against reported:
// go test ./engine -run XXX -bench Attribution -benchtime 1x [-bench.orders 100000 -bench.touches 2000000]
func BenchmarkAttribution(b *testing.B) {
	ch := testenv.ClickHouse(b)
	ctx := context.Background()
	leads := max(*benchOrders/2, 1)
	const from = 1701388800 // 2023-12-01 UTC; 100 days of touches and orders
	entity := "if(h % 2 = 0, 'alpha_ads', 'beta_ads'), 'con_1', 'act_1', concat('c', toString(h % 20)), " +
		"concat('s', toString(h % 100)), concat('a', toString(h % 400))"
	start := time.Now()
	for _, sql := range []string{
		fmt.Sprintf(`INSERT INTO journeys (project_id, kind, ts, lead_id, origin, source, connection_id, account_id, campaign_id,
			adset_id, ad_id, outbox_id) SELECT 'prj_bench', 'touch', toDateTime(%d + cityHash64(number) %% 8640000),
			concat('L', toString(number %% %d)), 'event', %s, number + 1
			FROM (SELECT number, cityHash64(number, 1) AS h FROM numbers(%d))`, from, leads, entity, *benchTouches),
		fmt.Sprintf(`INSERT INTO journeys (project_id, kind, ts, lead_id, order_id, currency, tx_revenue, tx_count, tx_count_total,
			outbox_id) SELECT 'prj_bench', 'order', toDateTime(%d + cityHash64(number, 3) %% 8640000),
			concat('L', toString(cityHash64(number, 2) %% %d)), concat('O', toString(number)), 'BRL',
			(1000 + number %% 50000) * 10000, 1, 1, number + 1 FROM numbers(%d)`, from, leads, *benchOrders),
		fmt.Sprintf(`INSERT INTO facts_raw (project_id, ts, hour, day, source, connection_id, account_id, campaign_id, adset_id,
			ad_id, currency, tx_revenue, tx_count, tx_count_total) SELECT 'prj_bench', ts, toDateTime(toUInt32(toStartOfHour(ts,
			'America/Sao_Paulo'))), toDate(ts, 'America/Sao_Paulo'), %s, 'BRL', (1000 + number %% 50000) * 10000, 1, 1
			FROM (SELECT number, toDateTime(%d + cityHash64(number, 3) %% 8640000) AS ts, cityHash64(number, 4) AS h
			FROM numbers(%d))`, entity, from, *benchOrders),
	} {
		if err := ch.Conn.Exec(ctx, sql); err != nil {
			b.Fatal(err)
		}
	}
	b.Logf("wrote %d orders and %d touches in %v", *benchOrders, *benchTouches, time.Since(start).Round(time.Second))
	scope := engine.Scope{ProjectID: "prj_bench", Currency: "BRL", TimeZone: "America/Sao_Paulo"}
	svc := engine.New(ch.Conn, engine.Options{Clock: clock.NewFake(time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC))})
	for _, days := range []struct{ name, start, end string }{{"30d", "2024-02-01", "2024-03-01"}, {"90d", "2023-12-03", "2024-03-01"}} {
		var reported time.Duration
		for _, model := range engine.Models {
			in := mustInput(b, `{"project_id":"prj_bench","fields":["tx_revenue","tx_count"],"time":{"start":"`+days.start+
				`","end":"`+days.end+`","granularity":"day"},"metadata":{"level":"campaign","attribution":{"model":"`+model+`"}}}`)
			b.Run(days.name+"_"+model, func(b *testing.B) {
				for b.Loop() {
					var took []time.Duration
					for range *benchIters {
						t0 := time.Now()
						if _, err := svc.Query(ctx, scope, in); err != nil {
							b.Fatal(err)
						}
						took = append(took, time.Since(t0))
					}
					slices.Sort(took)
					p50, p99 := took[len(took)/2], took[(len(took)*99-1)/100]
					if model == engine.ModelReported {
						reported = p50
					}
					b.ReportMetric(float64(p50.Microseconds())/1000, "p50_ms")
					b.ReportMetric(float64(p99.Microseconds())/1000, "p99_ms")
					b.ReportMetric(float64(p50)/float64(max(reported, 1)), "x_reported")
				}
			})
		}
	}
}
