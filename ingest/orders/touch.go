package orders

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/leads"
	"mtk/ingest/traffic"
)

// LeadTouch is where an order's lead came from: the touch (ingest/traffic) of the lead's latest
// event at or before before, among its events and those of the leads merged into it, read from
// their stored touches (lead_touches: every event's, written with the event), so that an order
// is acknowledged with PostgreSQL alone. known is false while the touch backfill has not yet
// read back the events of a lead older than it (schema/postgres/0022): the order's business rows
// then wait for the business backfill. An order without a lead has the zero touch, known.
func LeadTouch(ctx context.Context, q leads.Querier, project, leadID string, before time.Time) (touch traffic.Touch, known bool, err error) {
	if leadID == "" {
		return traffic.Touch{}, true, nil
	}
	return scanLeadTouch(q.QueryRow(ctx, leadTouchSQL, project, leadID, before))
}

// queueLeadTouch queues LeadTouch's read of a lead on b: touch and known are set when b's results
// are closed.
func queueLeadTouch(b *pgx.Batch, project, leadID string, before time.Time, touch *traffic.Touch, known *bool) {
	b.Queue(leadTouchSQL, project, leadID, before).QueryRow(func(row pgx.Row) error {
		var err error
		*touch, *known, err = scanLeadTouch(row)
		return err
	})
}

const leadTouchSQL = `WITH l AS (SELECT id, created_at FROM leads WHERE project_id = $1 AND (id = $2 OR merged_into = $2))
	SELECT NOT EXISTS (SELECT 1 FROM l, touch_backfill b WHERE NOT b.done AND l.created_at < b.migrated_at),
		coalesce(t.referrer_host, ''), coalesce(t.landing_path, ''), coalesce(t.device, '')
	FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT t.* FROM l CROSS JOIN LATERAL (
			SELECT * FROM lead_touches t WHERE t.lead_id = l.id AND t.ts <= $3 ORDER BY t.ts DESC, t.event_id DESC LIMIT 1) t
		ORDER BY t.ts DESC, t.event_id DESC LIMIT 1) t ON true`

func scanLeadTouch(row pgx.Row) (touch traffic.Touch, known bool, err error) {
	if err := row.Scan(&known, &touch.ReferrerHost, &touch.LandingPath, &touch.Device); err != nil {
		return traffic.Touch{}, false, fmt.Errorf("orders: the lead's touch: %w", err)
	}
	return touch, known, nil
}
