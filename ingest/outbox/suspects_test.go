package outbox_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// A lookup of more suspects than one statement lists (a whole DrainBatch) finds exactly those
// that ClickHouse holds.
func TestSuspectsLookupInChunks(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	var rows []events.EventRow
	for i := range 3 {
		rows = append(rows, events.EventRow{ProjectID: "prj_1", ContainerID: "ctr_1", EventID: fmt.Sprintf("e%d", i),
			Time: clk.Now().Add(-time.Duration(i) * time.Minute), ReceivedAt: clk.Now(), Name: "Lead", Source: "website",
			Currency: "BRL", Body: "{}"})
	}
	queueEvents(t, pg.Pool, rows)
	if n, err := events.NewDrainer(pg.Pool, ch.Conn, clk, nil).RunOnce(ctx); err != nil || n != 3 {
		t.Fatalf("drain: %d %v", n, err)
	}
	stored, err := ch.Conn.Query(ctx, "SELECT outbox_id FROM events")
	if err != nil {
		t.Fatal(err)
	}
	want := map[uint64]bool{}
	for stored.Next() {
		var id uint64
		if err := stored.Scan(&id); err != nil {
			t.Fatal(err)
		}
		want[id] = true
	}
	if err := stored.Err(); err != nil || len(want) != 3 {
		t.Fatalf("stored ids %v, %v", want, err)
	}
	// A whole batch of 13-digit ids (with the stored ones among them): in one statement, more than
	// ClickHouse's max_query_size.
	var s outbox.Suspects
	for id := range want {
		s.Add(id, "prj_1", clk.Now(), clk.Now())
	}
	for i := range uint64(outbox.DrainBatch - len(want)) {
		s.Add(1_000_000_000_000+i, "prj_1", clk.Now().Add(-time.Hour), clk.Now().Add(-time.Hour))
	}
	got := map[uint64]bool{}
	if err := s.Lookup(ctx, ch.Conn, "events", got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lookup found %v, want %v", got, want)
	}
}
