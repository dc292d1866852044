package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// queueEvents commits rows to the event outbox, as a flush does.
func queueEvents(t testing.TB, pool *pgxpool.Pool, rows []events.EventRow) {
	t.Helper()
	ctx := context.Background()
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		events.QueueEvents(w, rows)
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The event drainer killed before its insert, or between the insert and the delete, and run
// again stores every event exactly once, with its columns as queued.
func TestEventDrainerCrashes(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	queue := func(from, n int) {
		t.Helper()
		var rows []events.EventRow
		for i := from; i < from+n; i++ {
			rows = append(rows, events.EventRow{ProjectID: "prj_1", ContainerID: "ctr_1", EventID: fmt.Sprintf("e%d", i),
				Time: clk.Now().Add(-time.Duration(i) * time.Minute), ReceivedAt: clk.Now(), Name: "Lead", Source: "website",
				LeadID: "lead_1", NewLead: i == 0, UTMCampaign: "C|1", CampaignID: "1", Value: int64(i) * 100,
				Currency: "BRL", Body: `{"x":1}`})
		}
		queueEvents(t, pg.Pool, rows)
	}
	stored := func() (rows uint64, value int64, newLeads uint64) {
		t.Helper()
		if err := ch.Conn.QueryRow(ctx, `SELECT count(), sum(value), sum(new_lead) FROM events
			WHERE project_id = 'prj_1' AND campaign_id = '1' AND body = '{"x":1}'`).Scan(&rows, &value, &newLeads); err != nil {
			t.Fatal(err)
		}
		return
	}
	d := events.NewDrainer(pg.Pool, ch.Conn, clk, nil)

	queue(0, 10)
	outbox.SetCrash(d, killAt("mark"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("first run: %v", err)
	}
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 10 {
		t.Fatalf("second run: %d %v", n, err)
	}
	if rows, value, newLeads := stored(); rows != 10 || value != 4500 || newLeads != 1 {
		t.Fatalf("after the restart: %d rows, value %d, %d new leads", rows, value, newLeads)
	}

	queue(10, 5)
	outbox.SetCrash(d, killAt("insert"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("third run: %v", err)
	}
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 5 {
		t.Fatalf("fourth run: %d %v", n, err)
	}
	if n, err := d.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("nothing left: %d %v", n, err)
	}
	if rows, value, _ := stored(); rows != 15 || value != 10500 {
		t.Fatalf("at the end: %d rows, value %d", rows, value)
	}
	if left := outboxLeft(t, pg.Pool); left != (outboxCounts{}) {
		t.Fatalf("left in PostgreSQL: %+v", left)
	}
}
