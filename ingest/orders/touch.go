package orders

import (
	"context"
	"fmt"
	"time"

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
	err = q.QueryRow(ctx, `WITH l AS (SELECT id, created_at FROM leads WHERE project_id = $1 AND (id = $2 OR merged_into = $2))
		SELECT NOT EXISTS (SELECT 1 FROM l, touch_backfill b WHERE NOT b.done AND l.created_at < b.migrated_at),
			coalesce(t.referrer_host, ''), coalesce(t.landing_path, ''), coalesce(t.device, '')
		FROM (SELECT 1) one LEFT JOIN LATERAL (SELECT t.* FROM l CROSS JOIN LATERAL (
				SELECT * FROM lead_touches t WHERE t.lead_id = l.id AND t.ts <= $3 ORDER BY t.ts DESC, t.event_id DESC LIMIT 1) t
			ORDER BY t.ts DESC, t.event_id DESC LIMIT 1) t ON true`,
		project, leadID, before).Scan(&known, &touch.ReferrerHost, &touch.LandingPath, &touch.Device)
	if err != nil {
		return traffic.Touch{}, false, fmt.Errorf("orders: the lead's touch: %w", err)
	}
	return touch, known, nil
}
