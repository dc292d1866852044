package conversions

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
	"mtk/internal/testenv"
)

// The purge on a clock: sent conversions queued more than 7 days ago go, dead ones more than 30
// days ago; pending ones, and settled ones younger than their retention, stay. A backlog larger
// than a chunk goes whole.
func TestPurgeConversions(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	queue := func(id, status string, queued time.Time) {
		t.Helper()
		err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
			w := &pgx.Batch{}
			in := capi.Input{EventName: "Lead", EventTime: queued, EventID: id, ActionSource: capi.Other, Lead: capi.Lead{Email: "a@x.com"}}
			if err := Queue(w, Conversion{ProjectID: "prj_1", PixelID: "px1", Input: in}, queued); err != nil {
				return err
			}
			w.Queue("UPDATE conversion_outbox SET status = $2 WHERE event_id = $1", id, status)
			return tx.SendBatch(ctx, w).Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	queue("sent-8d", StatusSent, now.Add(-8*24*time.Hour))
	queue("sent-7d", StatusSent, now.Add(-SentRetention))
	queue("sent-1d", StatusSent, now.Add(-24*time.Hour))
	queue("pending-40d", StatusPending, now.Add(-40*24*time.Hour))
	queue("dead-31d", StatusDead, now.Add(-31*24*time.Hour))
	queue("dead-8d", StatusDead, now.Add(-8*24*time.Hour))
	if _, err := pg.Pool.Exec(ctx, `INSERT INTO conversion_outbox (project_id, pixel_id, event_name, event_id, event_time,
		payload, status, next_attempt_at, created_at)
		SELECT 'prj_1', 'px1', 'Lead', 'bulk-' || i, $1, '{}', 'sent', $1, $1 FROM generate_series(1, $2) AS i`,
		now.Add(-10*24*time.Hour), purgeChunk+1); err != nil {
		t.Fatal(err)
	}
	sent, dead, err := Purge(ctx, pg.Pool, now)
	if err != nil {
		t.Fatal(err)
	}
	if sent != purgeChunk+2 || dead != 1 {
		t.Fatalf("purged %d sent and %d dead, want %d and 1", sent, dead, purgeChunk+2)
	}
	rows, err := pg.Pool.Query(ctx, "SELECT event_id FROM conversion_outbox ORDER BY event_id")
	if err != nil {
		t.Fatal(err)
	}
	left, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dead-8d", "pending-40d", "sent-1d", "sent-7d"}
	if len(left) != len(want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	for i := range want {
		if left[i] != want[i] {
			t.Fatalf("left %v, want %v", left, want)
		}
	}
}
