package journeys

import (
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/outbox"
)

// journeyOutbox is the journey stream's outbox table.
const journeyOutbox = "journey_outbox"

// Journey row kinds (journeys.kind).
const (
	JourneyTouch = "touch"
	JourneyOrder = "order"
	JourneyMerge = "merge"
)

// Touch origins (journeys.origin): what a touch was; its event_id names it.
const (
	OriginEvent     = "event"      // a tracking event, by its event_id
	OriginLinkClick = "link_click" // a tracking-link click, by its click id
)

// JourneyRow is one row for ClickHouse's journeys_by_lead table (the columns of
// schema/clickhouse/0010_journeys.sql): a lead's touch (an event or tracking-link click whose UTM
// resolved to an ad entity) or an order's signed contribution under its lead, from which the
// credit worker (ingest/credits) credits orders.
type JourneyRow struct {
	ProjectID, TimeZone string
	Kind                string
	Time                time.Time
	LeadID              string
	// MergedInto is the lead a merge row's lead was merged into.
	MergedInto string
	// OrderID names an order row's transaction (connection and id); EventID a touch's event or
	// click (by Origin).
	OrderID, EventID string
	// Origin is what a touch was (OriginEvent, OriginLinkClick).
	Origin string
	// AdEntity is a touch's ad entity (an order's row has none).
	facts.AdEntity
	Currency string
	// Money in micros of Currency, as in facts_raw.
	Revenue, Count, CountTotal, CountPending, CountRefunded, ProductCosts int64
}

// Negate returns r with every value's sign flipped.
func (r JourneyRow) Negate() JourneyRow {
	r.Revenue, r.Count, r.CountTotal = -r.Revenue, -r.Count, -r.CountTotal
	r.CountPending, r.CountRefunded, r.ProductCosts = -r.CountPending, -r.CountRefunded, -r.ProductCosts
	return r
}

const journeyColumns = `project_id, timezone, kind, ts, lead_id, merged_into, order_id, event_id, origin, source, connection_id,
	account_id, campaign_id, adset_id, ad_id, currency, tx_revenue, tx_count, tx_count_total, tx_count_pending,
	tx_count_refunded, tx_product_costs`

func (r *JourneyRow) args() []any {
	return []any{r.ProjectID, r.TimeZone, r.Kind, r.Time, r.LeadID, r.MergedInto, r.OrderID, r.EventID, r.Origin, r.Source,
		r.ConnectionID, r.AccountID, r.CampaignID, r.AdsetID, r.AdID, r.Currency, r.Revenue, r.Count, r.CountTotal,
		r.CountPending, r.CountRefunded, r.ProductCosts}
}

func (r *JourneyRow) dest() []any {
	return []any{&r.ProjectID, &r.TimeZone, &r.Kind, &r.Time, &r.LeadID, &r.MergedInto, &r.OrderID, &r.EventID, &r.Origin, &r.Source,
		&r.ConnectionID, &r.AccountID, &r.CampaignID, &r.AdsetID, &r.AdID, &r.Currency, &r.Revenue, &r.Count,
		&r.CountTotal, &r.CountPending, &r.CountRefunded, &r.ProductCosts}
}

// QueueJourneys queues rs on w, in order, and the growth of the outbox's size, to be written in
// the caller's transaction. Nothing is queued for no rows.
func QueueJourneys(w *pgx.Batch, rs []JourneyRow, now time.Time) {
	if len(rs) == 0 {
		return
	}
	for i := range rs {
		w.Queue(`INSERT INTO `+journeyOutbox+` (`+journeyColumns+`, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)`,
			append(rs[i].args(), now)...)
	}
	outbox.QueueResize(w, journeyOutbox, len(rs))
}

// OrderJourney is the journey row of an order's state (status as stored, value and cost in minor
// units of currency), under its lead at its created time; false for a failed order, which counts
// nothing. Its values are those the order contributes to facts_raw when attributed.
func OrderJourney(project, zone, orderID, lead, status, currency string, created time.Time, value, cost int64) (JourneyRow, bool) {
	if status == "failed" {
		return JourneyRow{}, false
	}
	r := JourneyRow{ProjectID: project, TimeZone: zone, Kind: JourneyOrder, Time: created.UTC(), LeadID: lead,
		OrderID: orderID, Currency: currency, CountTotal: 1}
	switch status {
	case "approved":
		r.Revenue, r.Count, r.ProductCosts = value*facts.MicrosPerMinor, 1, cost*facts.MicrosPerMinor
	case "pending":
		r.CountPending = 1
	default: // refunded, chargeback
		r.CountRefunded = 1
	}
	return r, true
}

// QueueLeadMerge queues, before the merge itself, a merge row for the lead merged and for every
// lead merged into it before (all of them then point at survivor), with the growth of the
// outbox's size, in the caller's transaction.
func QueueLeadMerge(w *pgx.Batch, projectID, merged, survivor string, now time.Time) {
	w.Queue(`WITH ins AS (INSERT INTO journey_outbox (project_id, timezone, kind, ts, lead_id, merged_into, created_at)
			SELECT l.project_id, p.timezone, 'merge', $4, l.id, $3, $4 FROM leads l JOIN projects p ON p.id = l.project_id
			WHERE l.project_id = $1 AND (l.id = $2 OR l.merged_into = $2) RETURNING 1)
		INSERT INTO outbox_sizes AS s (outbox, backend, n) SELECT 'journey_outbox', pg_backend_pid(), count(*) FROM ins
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, projectID, merged, survivor, now)
}
