package orders

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"

	"mtk/ingest/leads"
	"mtk/ingest/traffic"
)

// latestEvent is an event's instant, id and what its touch is made of.
type latestEvent struct {
	ts                        time.Time
	eventID                   string
	page, referrer, userAgent string
}

// after reports whether e is later than o (by time, then event id), the order both stores agree on.
func (e latestEvent) after(o latestEvent) bool {
	return e.ts.After(o.ts) || e.ts.Equal(o.ts) && e.eventID > o.eventID
}

// LeadTouch is where an order's lead came from: the touch (ingest/traffic) of the lead's latest
// event at or before before, among its events and those of the leads merged into it. It reads
// their stored touches (lead_touches: each lead's latest event since the business facts), unless
// one of the leads is older than them or has an event after before, when it reads the events
// themselves (the event outbox, then ClickHouse's events). An order without a lead has none.
func LeadTouch(ctx context.Context, q leads.Querier, ch driver.Conn, project, leadID string, before time.Time) (traffic.Touch, error) {
	if leadID == "" {
		return traffic.Touch{}, nil
	}
	var ids []string
	var readEvents bool
	var kept traffic.Touch
	err := q.QueryRow(ctx, `WITH l AS (SELECT id, created_at FROM leads WHERE project_id = $1 AND (id = $2 OR merged_into = $2)),
		t AS (SELECT t.* FROM lead_touches t JOIN l ON l.id = t.lead_id)
		SELECT (SELECT array_agg(id) FROM l),
			EXISTS (SELECT 1 FROM l, business_backfill b WHERE l.created_at < b.migrated_at) OR EXISTS (SELECT 1 FROM t WHERE t.ts > $3),
			coalesce(b.referrer_host, ''), coalesce(b.landing_path, ''), coalesce(b.device, '')
		FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT * FROM t ORDER BY ts DESC, event_id COLLATE "C" DESC LIMIT 1) b ON true`,
		project, leadID, before).Scan(&ids, &readEvents, &kept.ReferrerHost, &kept.LandingPath, &kept.Device)
	if err != nil {
		return traffic.Touch{}, fmt.Errorf("orders: the lead's touch: %w", err)
	}
	switch {
	case len(ids) == 0:
		return traffic.Touch{}, nil
	case !readEvents:
		return kept, nil // zero when the leads have no event
	}
	var best latestEvent
	var found bool
	var e latestEvent
	err = q.QueryRow(ctx, `SELECT ts, event_id, page_url, referrer, user_agent FROM event_outbox
		WHERE project_id = $1 AND lead_id = ANY($2) AND ts <= $3 ORDER BY ts DESC, event_id COLLATE "C" DESC LIMIT 1`,
		project, ids, before).Scan(&e.ts, &e.eventID, &e.page, &e.referrer, &e.userAgent)
	switch {
	case err == nil:
		best, found = e, true
	case err != pgx.ErrNoRows:
		return traffic.Touch{}, fmt.Errorf("orders: the lead's latest queued event: %w", err)
	}
	rows, err := ch.Query(ctx, `SELECT ts, event_id, page_url, referrer, user_agent FROM events
		WHERE project_id = ? AND lead_id IN ? AND ts <= ? ORDER BY ts DESC, event_id DESC LIMIT 1`,
		project, clickhouse.GroupSet{Value: anys(ids)}, before.UTC())
	if err != nil {
		return traffic.Touch{}, fmt.Errorf("orders: the lead's latest event: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c latestEvent
		if err := rows.Scan(&c.ts, &c.eventID, &c.page, &c.referrer, &c.userAgent); err != nil {
			return traffic.Touch{}, err
		}
		if !found || c.after(best) {
			best, found = c, true
		}
	}
	if err := rows.Err(); err != nil {
		return traffic.Touch{}, fmt.Errorf("orders: the lead's latest event: %w", err)
	}
	if !found {
		return traffic.Touch{}, nil
	}
	return traffic.Of(best.page, best.referrer, best.userAgent), nil
}

func anys(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
