package journeys

import (
	"fmt"
	"slices"
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
// facts.JourneysFamily): a lead's touch (an event or tracking-link click that is a marketing touch,
// on the ad entity its UTM resolved to, if any) or an order's signed contribution under its lead,
// from which the credit worker (ingest/credits) credits orders.
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
	// AdEntity is a touch's ad entity, zero for a touch whose UTM resolves to none.
	facts.AdEntity
	Currency string
	// Dims are a touch's traffic dimensions; empty on order and merge rows.
	Dims facts.TouchDims
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

// rowColumns are a journey row's columns in journeys_by_lead but outbox_id, in the family's table
// order (facts.JourneysFamily), that of values and dest.
var rowColumns = slices.DeleteFunc(facts.JourneysFamily.ColumnNames("journeys_by_lead"), func(c string) bool { return c == "outbox_id" })

// journeyColumns are journey_outbox's columns of a row: rowColumns and the project's time zone.
var journeyColumns = strings.Join(rowColumns, ", ") + ", timezone"

// values are r's values of rowColumns.
func (r *JourneyRow) values() []any {
	out := []any{r.ProjectID, r.Kind, r.Time.UTC(), r.LeadID, r.MergedInto, r.OrderID, r.EventID, r.Origin}
	for _, k := range r.AdEntity.List() {
		out = append(out, k)
	}
	out = append(append(out, r.Currency), r.Dims.Values()...)
	return append(out, r.Values.Pick(journeyMeasures)...)
}

// args are r's values of journeyColumns.
func (r *JourneyRow) args() []any { return append(r.values(), r.TimeZone) }

// dest are pointers to r's fields in journeyColumns order.
func (r *JourneyRow) dest() []any {
	out := append([]any{&r.ProjectID, &r.Kind, &r.Time, &r.LeadID, &r.MergedInto, &r.OrderID, &r.EventID, &r.Origin},
		r.AdEntity.Dest()...)
	out = append(append(out, &r.Currency), r.Dims.Dest()...)
	return append(append(out, r.Values.Dest(journeyMeasures)...), &r.TimeZone)
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
// entity its UTM resolved to (zero for none), with its traffic dimensions. The live writers and
// the backfill both make touches with it.
func TouchRow(project, zone, origin, id, lead string, at time.Time, entity facts.AdEntity, dims facts.TouchDims) JourneyRow {
	return JourneyRow{ProjectID: project, TimeZone: zone, Kind: JourneyTouch, Time: at.UTC(), LeadID: lead, EventID: id,
		Origin: origin, AdEntity: entity, Dims: dims}
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
