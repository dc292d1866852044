package leads

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/traffic"
	"mtk/platform/utm"
)

// Querier is what the reads of a lead's touches go through: a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Touch is a lead's event as an order's traffic source and reported attribution read it
// (lead_touches): when, where it came from and the UTM it carried.
type Touch struct {
	LeadID, EventID string
	Time            time.Time
	traffic.Touch
	UTM utm.Params
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
	var utms [5][]string
	var times []time.Time
	// In key order, so that concurrent writers lock rows in one order.
	for _, t := range slices.SortedFunc(slices.Values(ts), Touch.compare) {
		if t.LeadID != "" {
			ids, events, hosts, paths, devices = append(ids, t.LeadID), append(events, t.EventID), append(hosts, t.ReferrerHost),
				append(paths, t.LandingPath), append(devices, t.Device)
			times = append(times, t.Time)
			for i, v := range [5]string{t.UTM.Source, t.UTM.Medium, t.UTM.Campaign, t.UTM.Content, t.UTM.Term} {
				utms[i] = append(utms[i], v)
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	w.Queue(`INSERT INTO lead_touches (lead_id, ts, event_id, referrer_host, landing_path, device,
			utm_source, utm_medium, utm_campaign, utm_content, utm_term)
		SELECT u.* FROM unnest($1::text[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[],
			$7::text[], $8::text[], $9::text[], $10::text[], $11::text[]) AS u (id)
		WHERE EXISTS (SELECT 1 FROM leads l WHERE l.id = u.id)
		ON CONFLICT DO NOTHING`, ids, times, events, hosts, paths, devices, utms[0], utms[1], utms[2], utms[3], utms[4])
}

// QueueUTMAt queues the read of the UTM that reported attribution gives an order of lead's
// person (the root lead and every lead merged into it) made at instant at, and sets *out to it
// when b's results are closed: the UTM of its latest touch carrying one at or before at, never of
// a touch after it (none: the zero Params). A person none of whose stored touches carries a UTM
// (touches stored before lead_touches kept it) has latest, its lead's latest UTM, as before.
func QueueUTMAt(b *pgx.Batch, projectID, leadID string, at time.Time, latest utm.Params, out *utm.Params) {
	b.Queue(`SELECT t.utm_source, t.utm_medium, t.utm_campaign, t.utm_content, t.utm_term, t.ts <= $3
		FROM leads l JOIN lead_touches t ON t.lead_id = l.id
		WHERE l.project_id = $1 AND (l.id = $2 OR l.merged_into = $2)
			AND (t.utm_source <> '' OR t.utm_medium <> '' OR t.utm_campaign <> '' OR t.utm_content <> '' OR t.utm_term <> '')
		ORDER BY t.ts <= $3 DESC, t.ts DESC, t.event_id DESC LIMIT 1`, projectID, leadID, at).QueryRow(func(row pgx.Row) error {
		var p utm.Params
		var before bool
		err := row.Scan(&p.Source, &p.Medium, &p.Campaign, &p.Content, &p.Term, &before)
		switch {
		case err == pgx.ErrNoRows:
			*out = latest
		case err != nil:
			return fmt.Errorf("leads: the UTM at an order's time: %w", err)
		case !before:
			*out = utm.Params{}
		default:
			*out = p
		}
		return nil
	})
}
