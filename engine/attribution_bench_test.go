package engine_test

import (
	"context"
	"flag"
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

// BenchmarkAttribution stores -bench.orders orders over 100 days as production does: their
// credits under every model (benchJourneys: buyers' journeys of 1-6 touches, credited by
// facts.Credits) and their reported facts, and as many more touches of visitors who never buy
// as make -bench.touches. It then times a campaign-by-day query of order metrics (the ad view) and
// a utm_source-by-day one (the traffic view) on 30 and 90 days under every model and date,
// reporting p50, p99 and p50 against reported's in the same view:
// go test ./engine -run XXX -bench Attribution -benchtime 1x [-bench.orders 100000 -bench.touches 2000000]
func BenchmarkAttribution(b *testing.B) {
	ch := testenv.ClickHouse(b)
	ctx := context.Background()
	loc, _ := time.LoadLocation("America/Sao_Paulo")
	bj := benchJourneys{project: "prj_bench", loc: loc, from: time.Date(2023, 12, 1, 0, 0, 0, 0, time.UTC), days: 100, ads: 400}
	start := time.Now()
	touches, err := bj.write(ctx, ch.Conn, *benchOrders)
	if err == nil {
		err = bj.writeLookers(ctx, ch.Conn, int64(*benchTouches)-touches)
	}
	wrote := time.Since(start)
	// The rollups as a day of background merges leaves them, for the credits and reported.
	for _, t := range []string{"credits_hourly", "credits_daily", "credits_traffic_daily", "facts_hourly", "facts_daily", "business_hourly", "business_daily",
		"business_dim_hourly", "business_dim_daily"} {
		if err == nil {
			err = ch.Conn.Exec(ctx, "OPTIMIZE TABLE "+t+" FINAL")
		}
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("wrote %d orders (%d touches of buyers) and %d touches in all in %v, merged the rollups in %v", *benchOrders, touches,
		max(int64(*benchTouches), touches), wrote.Round(time.Second), (time.Since(start) - wrote).Round(time.Second))
	scope := engine.Scope{ProjectID: "prj_bench", Currency: "BRL", TimeZone: "America/Sao_Paulo"}
	svc := engine.New(ch.Conn, engine.Options{Clock: clock.NewFake(time.Date(2024, 3, 15, 12, 0, 0, 0, time.UTC))})
	// Each view's runs: the ad view by campaign (its default touches, ads), the traffic view by
	// utm_source (its default touches, all), reported first: the others are compared with it.
	type run struct{ view, meta, model, date string }
	var runs []run
	for _, v := range []struct{ view, meta string }{{engine.ViewAds, `"level":"campaign"`}, {engine.ViewTraffic, `"dimensions":["utm_source"]`}} {
		runs = append(runs, run{v.view, v.meta, engine.ModelReported, engine.DateConversion})
		for _, m := range engine.Models[1:] {
			for _, d := range engine.AttributionDates {
				runs = append(runs, run{v.view, v.meta, m, d})
			}
		}
	}
	for _, days := range []struct{ name, start, end string }{{"30d", "2024-02-01", "2024-03-01"}, {"90d", "2023-12-03", "2024-03-01"}} {
		var reported time.Duration
		for _, r := range runs {
			in := mustInput(b, `{"project_id":"prj_bench","fields":["tx_revenue","tx_count"],"time":{"start":"`+days.start+
				`","end":"`+days.end+`","granularity":"day"},"metadata":{`+r.meta+`,"attribution":{"model":"`+r.model+
				`","date":"`+r.date+`"}}}`)
			b.Run(days.name+"_"+r.view+"_"+r.model+"_"+r.date, func(b *testing.B) {
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
					if r.model == engine.ModelReported {
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
