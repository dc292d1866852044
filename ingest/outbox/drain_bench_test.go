package outbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/chfence"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// benchEvents is how many events each iteration drains: one full batch.
const benchEvents = outbox.DrainBatch

// BenchmarkEventDrain drains a batch of events into ClickHouse per iteration, as the event
// drainer does after an outage: the drain's throughput.
//
//	go test ./ingest/outbox -run '^$' -bench EventDrain -benchtime 5x -count 3
func BenchmarkEventDrain(b *testing.B) {
	benchDrain(b, false)
}

// BenchmarkEventDrainRecovery is BenchmarkEventDrain with every batch listed by an interrupted
// attempt (its statements ended): what recovering a batch costs, the fence and the look-up of
// every row included.
func BenchmarkEventDrainRecovery(b *testing.B) {
	benchDrain(b, true)
}

func benchDrain(b *testing.B, interrupted bool) {
	pg := testenv.Postgres(b)
	ch := testenv.ClickHouse(b)
	ctx := context.Background()
	d := events.NewDrainer(pg.Pool, ch.Conn, clock.Real{}, slog.New(slog.DiscardHandler))
	now := time.Now().UTC().Truncate(time.Second)
	var took time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		rows := make([]events.EventRow, benchEvents)
		for j := range rows {
			rows[j] = events.EventRow{ProjectID: fmt.Sprintf("prj_%d", j%8), ContainerID: "ctn_1", EventID: fmt.Sprintf("ev-%d-%d", i, j),
				Name: "PageView", Time: now, ReceivedAt: now, PageURL: "https://shop.example/p/1", UserAgent: "Mozilla/5.0"}
		}
		queueEvents(b, pg.Pool, rows)
		if interrupted {
			conn, err := pg.Pool.Acquire(ctx)
			if err != nil {
				b.Fatal(err)
			}
			batch, err := outbox.LoadBatch(ctx, d, conn)
			if err != nil {
				b.Fatal(err)
			}
			var ids []int64
			for _, k := range batch.Keys() {
				ids = append(ids, k.ID)
			}
			err = outbox.RecordTry(ctx, d, conn, ids, chfence.NewPrefix("drain"))
			conn.Release()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		start := time.Now()
		if n, err := d.RunOnce(ctx); err != nil || n != benchEvents {
			b.Fatalf("drained %d events, %v", n, err)
		}
		took += time.Since(start)
	}
	b.ReportMetric(float64(b.N*benchEvents)/took.Seconds(), "events/s")
}
