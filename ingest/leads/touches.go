package leads

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/traffic"
)

// Touch is a lead's event as an order's traffic source reads it (lead_touches): when, and where
// it came from.
type Touch struct {
	LeadID, EventID string
	Time            time.Time
	traffic.Touch
}

// compare orders touches by lead, then time, then event id (bytewise, as ClickHouse and the
// table's key compare).
func (t Touch) compare(o Touch) int {
	return cmp.Or(strings.Compare(t.LeadID, o.LeadID), t.Time.Compare(o.Time), strings.Compare(t.EventID, o.EventID))
}

// QueueTouches queues, in the events' transaction, the touch of each of ts that has a lead (an
// order's traffic source is its lead's latest event before the order, whatever came after); a
// touch stored already is kept; those of leads deleted since (the backfill reads old events) are
// dropped.
func QueueTouches(w *pgx.Batch, ts []Touch) {
	var ids, events, hosts, paths, devices []string
	var times []time.Time
	// In key order, so that concurrent writers lock rows in one order.
	for _, t := range slices.SortedFunc(slices.Values(ts), Touch.compare) {
		if t.LeadID != "" {
			ids, events, hosts, paths, devices = append(ids, t.LeadID), append(events, t.EventID), append(hosts, t.ReferrerHost),
				append(paths, t.LandingPath), append(devices, t.Device)
			times = append(times, t.Time)
		}
	}
	if len(ids) == 0 {
		return
	}
	w.Queue(`INSERT INTO lead_touches (lead_id, ts, event_id, referrer_host, landing_path, device)
		SELECT u.* FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u (id)
		WHERE EXISTS (SELECT 1 FROM leads l WHERE l.id = u.id)
		ON CONFLICT DO NOTHING`, ids, times, events, hosts, paths, devices)
}
