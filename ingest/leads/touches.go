package leads

import (
	"maps"
	"slices"
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

// later reports whether t comes after o, by time then event id (bytewise, as ClickHouse and
// COLLATE "C" compare).
func (t Touch) later(o Touch) bool {
	return t.Time.After(o.Time) || t.Time.Equal(o.Time) && t.EventID > o.EventID
}

// QueueTouches queues, in the events' transaction, each lead's latest of ts as its touch unless
// the stored one is later (events may arrive out of order).
func QueueTouches(w *pgx.Batch, ts []Touch) {
	latest := map[string]Touch{}
	for _, t := range ts {
		if cur, ok := latest[t.LeadID]; t.LeadID != "" && (!ok || t.later(cur)) {
			latest[t.LeadID] = t
		}
	}
	if len(latest) == 0 {
		return
	}
	var ids, events, hosts, paths, devices []string
	var times []time.Time
	// In lead order, so that concurrent writers lock rows in one order.
	for _, id := range slices.Sorted(maps.Keys(latest)) {
		t := latest[id]
		ids, events, hosts, paths, devices = append(ids, id), append(events, t.EventID), append(hosts, t.ReferrerHost),
			append(paths, t.LandingPath), append(devices, t.Device)
		times = append(times, t.Time)
	}
	w.Queue(`INSERT INTO lead_touches AS t (lead_id, ts, event_id, referrer_host, landing_path, device)
		SELECT * FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[])
		ON CONFLICT (lead_id) DO UPDATE SET ts = EXCLUDED.ts, event_id = EXCLUDED.event_id,
			referrer_host = EXCLUDED.referrer_host, landing_path = EXCLUDED.landing_path, device = EXCLUDED.device
		WHERE (EXCLUDED.ts, EXCLUDED.event_id COLLATE "C") > (t.ts, t.event_id COLLATE "C")`, ids, times, events, hosts, paths, devices)
}
