package journeys

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// The journey drainer's settle marks each lead of its batch once (a merge row's lead and its
// survivor), and an order without a lead alone, at its time to the second.
func TestJourneyDrainMarksLeads(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	at := clk.Now().Add(-time.Hour + 300*time.Millisecond)
	lone, _ := OrderJourney("prj_1", "UTC", "con_1/tx-9", "", "approved", "BRL", at, 100, 0)
	sold, _ := OrderJourney("prj_1", "UTC", "con_1/tx-1", "ld_1", "approved", "BRL", at, 100, 0)
	rows := []JourneyRow{{ProjectID: "prj_1", TimeZone: "UTC", Kind: JourneyTouch, Time: at, LeadID: "ld_1", EventID: "ev-1"},
		sold, lone, {ProjectID: "prj_1", TimeZone: "UTC", Kind: JourneyMerge, Time: at, LeadID: "ld_2", MergedInto: "ld_1"}}
	if err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		QueueJourneys(b, rows, clk.Now())
		return tx.SendBatch(ctx, b).Close()
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := NewDrainer(pg.Pool, ch.Conn, clk, nil).RunOnce(ctx); err != nil || n != 4 {
		t.Fatalf("drain: %d %v", n, err)
	}
	marks, err := pg.Pool.Query(ctx, `SELECT lead_id || ' ' || order_id || ' ' || to_char(order_ts AT TIME ZONE 'UTC',
		'YYYY-MM-DD HH24:MI:SS.US') FROM credit_dirty ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(marks, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{" con_1/tx-9 2026-03-10 14:00:00.000000", "ld_1  1970-01-01 00:00:00.000000", "ld_2  1970-01-01 00:00:00.000000"}
	if !slices.Equal(got, want) {
		t.Fatalf("marks %q, want %q", got, want)
	}
}
