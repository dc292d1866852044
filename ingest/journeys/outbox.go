package journeys

import (
	"fmt"
	"strings"
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
	facts.AdEntity
	Currency string
	// Values are an order row's, of facts.JourneysFamily.Measures; money in micros of Currency,
	// as in facts_raw.
	Values facts.Values
}

// Negate returns r with every value's sign flipped.
func (r JourneyRow) Negate() JourneyRow {
	r.Values = r.Values.Neg()
	return r
}

// journeyMeasures are the measures a journey row carries, in journey_outbox and journeys_by_lead.
var journeyMeasures = facts.JourneysFamily.Measures

// journeyColumns are journey_outbox's columns of a row, in the order of args and dest.
var journeyColumns = "project_id, timezone, kind, ts, lead_id, merged_into, order_id, event_id, origin, " +
	strings.Join(facts.AdEntityColumns, ", ") + ", currency, " + facts.Columns(journeyMeasures, "")

func (r *JourneyRow) args() []any {
	out := []any{r.ProjectID, r.TimeZone, r.Kind, r.Time, r.LeadID, r.MergedInto, r.OrderID, r.EventID, r.Origin}
	for _, k := range r.AdEntity.List() {
		out = append(out, k)
	}
	return append(append(out, r.Currency), r.Values.Pick(journeyMeasures)...)
}

func (r *JourneyRow) dest() []any {
	out := append([]any{&r.ProjectID, &r.TimeZone, &r.Kind, &r.Time, &r.LeadID, &r.MergedInto, &r.OrderID, &r.EventID, &r.Origin},
		r.AdEntity.Dest()...)
	return append(append(out, &r.Currency), r.Values.Dest(journeyMeasures)...)
}

// insertJourneySQL inserts one row's args and created_at into journey_outbox.
var insertJourneySQL = func() string {
	n := len(new(JourneyRow).args()) + 1
	params := make([]string, n)
	for i := range params {
		params[i] = fmt.Sprintf("$%d", i+1)
	}
	return "INSERT INTO " + journeyOutbox + " (" + journeyColumns + ", created_at) VALUES (" + strings.Join(params, ", ") + ")"
}()

// QueueJourneys queues rs on w, in order, and the growth of the outbox's size, to be written in
// the caller's transaction. Nothing is queued for no rows.
func QueueJourneys(w *pgx.Batch, rs []JourneyRow, now time.Time) {
	if len(rs) == 0 {
		return
	}
	for i := range rs {
		w.Queue(insertJourneySQL, append(rs[i].args(), now)...)
	}
	outbox.QueueResize(w, journeyOutbox, len(rs))
}

// TouchRow is the journey row of a touch: an event (OriginEvent, named by its event_id) or a
// tracking-link click (OriginLinkClick, named by its click id) of lead, at its instant, on the ad
// entity its UTM resolved to. The live writers and the backfill both make touches with it.
func TouchRow(project, zone, origin, id, lead string, at time.Time, entity facts.AdEntity) JourneyRow {
	return JourneyRow{ProjectID: project, TimeZone: zone, Kind: JourneyTouch, Time: at.UTC(), LeadID: lead, EventID: id,
		Origin: origin, AdEntity: entity}
}

// OrderJourney is the journey row of an order's state (status as stored, value and cost in minor
// units of currency), under its lead at its created time; false for a failed order, which counts
// nothing. Its values are those the order contributes to facts_raw when attributed
// (facts.OrderValues).
func OrderJourney(project, zone, orderID, lead, status, currency string, created time.Time, value, cost int64) (JourneyRow, bool) {
	v, counts := facts.OrderValues(status, value, cost)
	if !counts {
		return JourneyRow{}, false
	}
	return JourneyRow{ProjectID: project, TimeZone: zone, Kind: JourneyOrder, Time: created.UTC(), LeadID: lead,
		OrderID: orderID, Currency: currency, Values: v}, true
}

// QueueLeadMerge queues, before the merge itself, a merge row for the lead merged and for every
// lead merged into it before (all of them then point at survivor), with the growth of the
// outbox's size, in the caller's transaction; zone is the project's time zone.
func QueueLeadMerge(w *pgx.Batch, projectID, zone, merged, survivor string, now time.Time) {
	w.Queue(`WITH ins AS (INSERT INTO journey_outbox (project_id, timezone, kind, ts, lead_id, merged_into, created_at)
			SELECT l.project_id, $5::text, 'merge', $4, l.id, $3, $4 FROM leads l
			WHERE l.project_id = $1 AND (l.id = $2 OR l.merged_into = $2) RETURNING 1)
		INSERT INTO outbox_sizes AS s (outbox, backend, n) SELECT 'journey_outbox', pg_backend_pid(), count(*) FROM ins
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, projectID, merged, survivor, now, zone)
}
