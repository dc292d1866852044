package journeys

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/internal/testenv"
)

// BenchmarkQueueJourneys commits batches of touch rows with their dimensions into journey_outbox,
// as an event batch's transaction does (one transaction per batch), and reports the cost per row.
//
//	go test ./ingest/journeys -run '^$' -bench QueueJourneys -benchtime 300x
func BenchmarkQueueJourneys(b *testing.B) {
	pg := testenv.Postgres(b)
	ctx := context.Background()
	at := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	dims := facts.TouchDims{UTMSource: "email", UTMMedium: "newsletter", UTMCampaign: "march", LandingPath: "/sale", Device: "mobile"}
	for _, n := range []int{1, 10, 100} {
		rows := make([]JourneyRow, n)
		for i := range rows {
			rows[i] = TouchRow("prj_1", "UTC", OriginEvent, fmt.Sprintf("ev-%d", i), fmt.Sprintf("ld_%d", i), at, facts.AdEntity{}, dims)
		}
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			for range b.N {
				if err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
					w := &pgx.Batch{}
					QueueJourneys(w, rows, at)
					return tx.SendBatch(ctx, w).Close()
				}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/row")
		})
	}
}
