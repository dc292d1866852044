package events

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/leads"
	"mtk/ingest/traffic"
)

// TouchBackfill writes the touches (lead_touches) of the events of leads stored before the touch
// history (schema/postgres/0022: the event outbox ids up to touch_backfill.events_before, and 0),
// read back from ClickHouse's events table in (project, time, event id) order. Each batch's
// touches are written in the transaction that moves the cursor past them, and a touch stored
// already is kept, so a crash and a rerun change nothing more; a finished backfill does nothing.
// It runs in the background: acknowledging an order never waits for ClickHouse.
type TouchBackfill struct {
	Pool *pgxpool.Pool
	CH   driver.Conn
}

// Step writes the touches of at most limit events and returns how many events it read and
// whether it is finished.
func (b *TouchBackfill) Step(ctx context.Context, limit int) (read int, finished bool, err error) {
	err = pgx.BeginFunc(ctx, b.Pool, func(tx pgx.Tx) error {
		var c cursor
		var ts *time.Time
		if err := tx.QueryRow(ctx, `SELECT events_before, project_id, ts, event_id, done FROM touch_backfill FOR UPDATE`).
			Scan(&c.before, &c.project, &ts, &c.eventID, &c.done); err != nil {
			return err
		}
		if finished = c.done; finished {
			return nil
		}
		if err := eventsDrained(ctx, tx, c.before); err != nil {
			return err
		}
		if ts != nil {
			c.ts = *ts
		}
		touches, last, err := b.read(ctx, c, limit)
		if err != nil {
			return err
		}
		w := &pgx.Batch{}
		leads.QueueTouches(w, touches)
		read, finished = len(touches), len(touches) < limit
		if read > 0 {
			c.project, c.ts, c.eventID = last.project, last.ts, last.eventID
		}
		w.Queue(`UPDATE touch_backfill SET project_id = $1, ts = $2, event_id = $3, done = $4`, c.project, c.ts, c.eventID, finished)
		return tx.SendBatch(ctx, w).Close()
	})
	return read, finished, err
}

// read returns the touches of the next limit stored events with a lead after the cursor, and
// the cursor at the last of them.
func (b *TouchBackfill) read(ctx context.Context, c cursor, limit int) ([]leads.Touch, cursor, error) {
	rows, err := b.CH.Query(ctx, `SELECT project_id, ts, event_id, lead_id, page_url, referrer, user_agent,
			utm_source, utm_medium, utm_campaign, utm_content, utm_term
		FROM events WHERE outbox_id <= ? AND lead_id != ''
		AND (project_id > ? OR (project_id = ? AND (ts > ? OR (ts = ? AND event_id > ?))))
		ORDER BY project_id, ts, event_id LIMIT ?`,
		uint64(max(c.before, 0)), c.project, c.project, c.ts.UTC(), c.ts.UTC(), c.eventID, limit)
	if err != nil {
		return nil, c, fmt.Errorf("events: touch backfill: read events: %w", err)
	}
	defer rows.Close()
	var out []leads.Touch
	for rows.Next() {
		var t leads.Touch
		var page, referrer, ua string
		if err := rows.Scan(&c.project, &t.Time, &t.EventID, &t.LeadID, &page, &referrer, &ua,
			&t.UTM.Source, &t.UTM.Medium, &t.UTM.Campaign, &t.UTM.Content, &t.UTM.Term); err != nil {
			return nil, c, err
		}
		t.Touch = traffic.Of(page, referrer, ua)
		c.ts, c.eventID = t.Time, t.EventID
		out = append(out, t)
	}
	return out, c, rows.Err()
}
