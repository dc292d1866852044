package engine

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Attribution is metadata.attribution: which touches of an order's lead earn its order metrics
// (tx_*), and on which date. Event and ad metrics ignore it.
type Attribution struct {
	Model string `json:"model,omitempty"`
	// WindowDays is a pointer so that an explicit 0 is refused, not taken for the default.
	WindowDays *int   `json:"window_days,omitempty"`
	Date       string `json:"date,omitempty"`
}

// Attribution models, dates and windows.
const (
	ModelReported      = "reported"
	ModelLastClick     = "last_click"
	ModelFirstClick    = "first_click"
	ModelLinear        = "linear"
	ModelPositionBased = "position_based"
	ModelTimeDecay     = "time_decay"

	DateConversion = "conversion"
	DateClick      = "click"

	DefaultWindowDays = 28
	MaxWindowDays     = 90
	// timeDecayHalfLife is time_decay's half-life: a touch a week older weighs half.
	timeDecayHalfLife = 7 * 24 * 3600
)

// Models are the attribution models, reported (the order's own attribution) first: GET
// /v3/fields lists them.
var Models = []string{ModelReported, ModelLastClick, ModelFirstClick, ModelLinear, ModelPositionBased, ModelTimeDecay}

// AttributionDates are the values of metadata.attribution.date.
var AttributionDates = []string{DateConversion, DateClick}

// credits is a resolved attribution: the zero value (reported) reads the fact tables as they are.
type credits struct {
	model  string
	window time.Duration
	click  bool
}

func (c credits) on() bool { return c.model != "" && c.model != ModelReported }

func (in QueryInput) attribution() *Attribution {
	if in.Metadata == nil {
		return nil
	}
	return in.Metadata.Attribution
}

// validateAttribution adds a problem for each bad member of metadata.attribution.
func (in QueryInput) validateAttribution(p *problems) {
	a := in.attribution()
	if a == nil {
		return
	}
	if a.Model != "" && !contains(Models, a.Model) {
		p.add("metadata.attribution.model: unknown model %q; want one of %s", a.Model, strings.Join(Models, ", "))
	}
	if a.WindowDays != nil && (*a.WindowDays < 1 || *a.WindowDays > MaxWindowDays) {
		p.add("metadata.attribution.window_days: must be between 1 and %d", MaxWindowDays)
	}
	if a.Date != "" && !contains(AttributionDates, a.Date) {
		p.add("metadata.attribution.date: unknown date %q; want one of %s", a.Date, strings.Join(AttributionDates, ", "))
	}
	// Models credit ad entities; the business facts' breakdowns keep the reported attribution.
	if why := in.businessReason(); why != "" && a.Model != "" && a.Model != ModelReported && contains(Models, a.Model) {
		p.add("metadata.attribution.model: %s is answered with the reported model only", why)
	}
}

// resolveCredits is the query's attribution with its defaults (a validated query).
func (in QueryInput) resolveCredits() credits {
	a := in.attribution()
	if a == nil {
		return credits{}
	}
	c := credits{model: a.Model, window: DefaultWindowDays * 24 * time.Hour, click: a.Date == DateClick}
	if a.WindowDays != nil {
		c.window = time.Duration(*a.WindowDays) * 24 * time.Hour
	}
	return c
}

// crediting reports whether the plan credits order metrics by a model: it has one, and an order
// measure to credit.
func (p *plan) crediting() bool {
	if !p.credits.on() {
		return false
	}
	for _, m := range p.measures.members() {
		if isOrderMeasure(m) {
			return true
		}
	}
	return false
}

// journeysTable holds the touches and orders that models credit (schema/clickhouse/0010_journeys.sql).
const journeysTable = "journeys"

// orderMeasures are the measures journeys hold, in their column order.
var orderMeasures = []string{"tx_revenue", "tx_count", "tx_count_total", "tx_count_pending", "tx_count_refunded", "tx_product_costs"}

func isOrderMeasure(m measure) bool { return contains(orderMeasures, m.name) }

// creditedCount is the unit of a credited count: counts are credited to 4 decimals, as integers
// of 1/10,000 summed exactly, and shown divided.
const (
	creditedCount    = 10_000
	creditedCountSQL = "10000"
)

// creditsCount reports whether measure m is a count that the plan's model credits.
func (p *plan) creditsCount(m measure) bool { return !m.money && isOrderMeasure(m) && p.crediting() }

// creditedSource is what the first aggregation reads from table t when a model credits orders:
// the table's rows with their order measures left out (when other measures are asked), and the
// credited orders (at the table's time columns), both restricted by where, as columns
// v_<measure>.
func (p *plan) creditedSource(t table, where fragment) fragment {
	times := []string{"day"}
	switch t {
	case tableRaw:
		times = []string{"ts", "hour", "day"}
	case tableHourly:
		times = []string{"hour", "day"}
	}
	keys := "project_id, " + strings.Join(times, ", ") + ", source, connection_id, account_id, campaign_id, adset_id, ad_id, currency"
	var fromFacts, fromCredits []string
	others := false
	for _, m := range p.measures.members() {
		others = others || !isOrderMeasure(m)
		v := "v_" + m.name
		if isOrderMeasure(m) {
			fromFacts = append(fromFacts, "toInt64(0) AS "+v)
			fromCredits = append(fromCredits, "c_"+m.name+" AS "+v)
		} else {
			fromFacts = append(fromFacts, p.sumSource(m)+" AS "+v)
			fromCredits = append(fromCredits, "toInt64(0) AS "+v)
		}
	}
	z := zoneLiteral(p.zone)
	credited := expr("SELECT "+keys+", "+strings.Join(fromCredits, ", ")+" FROM (SELECT *, toDateTime(toUInt32(toStartOfHour(ts, "+z+
		"))) AS hour, toDate(ts, "+z+") AS day FROM (?)) AS credited WHERE ?", p.creditedOrders(), where)
	if p.level != "" {
		// An order without a touch is on no entity: it counts in totals only.
		credited = expr("? AND source != ''", credited)
	}
	if !others { // the fact tables would add only zeros
		return expr("(?)", credited)
	}
	return expr("(SELECT "+keys+", "+strings.Join(fromFacts, ", ")+" FROM "+p.tableName(t)+" WHERE ? UNION ALL ?)",
		where, credited)
}

// dayPad widens what the credited orders read around the range: a coarser table widens the
// range to whole local days (at most 25 hours), which the caller's condition then applies.
const dayPad = 2 * 24 * time.Hour

// creditedOrders is every order that can credit the range, one row per (order, touch) with the
// touch's entity and the order's values allocated to it in whole micros (counts in units of
// 1/creditedCount). Shares are cumulative, share i = floor(v * W_i / W) - floor(v * W_(i-1) / W)
// with W_i the sum of the first i weights, so that an order's shares sum to its value exactly. An
// order without a touch in its window is one row on no entity (an empty source). ts is the
// order's time (date conversion) or the touch's (date click).
func (p *plan) creditedOrders() fragment {
	w := int64(p.credits.window / time.Second)
	from, to := p.start.Add(-dayPad), p.end.Add(dayPad)
	if p.credits.click {
		to = to.Add(p.credits.window) // an order after the range credits touches inside it
	}
	var sums, nonzero []string
	for i, m := range orderMeasures {
		sums = append(sums, fmt.Sprintf("sum(%s) AS r%d", m, i))
		nonzero = append(nonzero, fmt.Sprintf("r%d != 0", i))
	}
	orders := p.asPerson(expr("SELECT project_id, lead_id, order_id, ts AS ots, currency, "+strings.Join(sums, ", ")+
		" FROM journeys WHERE project_id = ? AND kind = 'order' AND ts >= ? AND ts < ?"+
		" GROUP BY project_id, lead_id, order_id, ots, currency HAVING "+strings.Join(nonzero, " OR "),
		p.projectID, from.UTC(), to.UTC()))
	buyers := expr("SELECT person FROM (?)", p.asPerson(expr("SELECT DISTINCT lead_id FROM journeys"+
		" WHERE project_id = ? AND kind = 'order' AND ts >= ? AND ts < ?", p.projectID, from.UTC(), to.UTC())))
	// The identifiers whose touches can be a buyer's: the buyers and every lead merged into one.
	// Filtering the raw touches by them first spares the merge join and the grouping the touches
	// of every other lead.
	leads := expr("SELECT person FROM (?) UNION ALL SELECT lead_id FROM journeys WHERE project_id = ? AND kind = 'merge'"+
		" AND merged_into GLOBAL IN (?)", buyers, p.projectID, buyers)
	// A buyer's touches as two arrays, their times and their entities' keys, sorted by time, then
	// key, so that touches at the same second credit alike on every run. Grouping numbers, not
	// the entities' strings, is what keeps this cheap; entities() turns keys back into entities.
	// GLOBAL: on a cluster both sides read the Distributed table (a double-distributed IN).
	touched := expr("project_id = ? AND kind = 'touch' AND ts >= ? AND ts < ? AND lead_id != '' AND lead_id GLOBAL IN (?)",
		p.projectID, from.Add(-p.credits.window).UTC(), to.UTC(), leads)
	touches := expr("SELECT person, arraySort((t, e) -> (t, e), gts, gek) AS tts, arraySort((e, t) -> (t, e), gek, gts) AS tek"+
		" FROM (SELECT person, groupArray(ts) AS gts, groupArray(ek) AS gek FROM (?) WHERE person GLOBAL IN (?) GROUP BY person)",
		p.asPerson(expr("SELECT lead_id, ts, "+entityKey+" AS ek FROM journeys WHERE ?", touched)), buyers)
	// tw is the order's touches in its window, as indexes of the touch arrays (in time order),
	// twt their times. Lambdas capture only ots, which every level passes on to the last:
	// ClickHouse 18.16 drops a subquery's columns that only a lambda names.
	ws := strconv.FormatInt(w, 10)
	in := "t >= ots - " + ws + " AND t <= ots"
	const cols = "project_id, ots, currency, r0, r1, r2, r3, r4, r5, tek"
	joined := expr("SELECT "+cols+", arrayFilter((k, t) -> "+in+", arrayEnumerate(tts), tts) AS tw, arrayFilter(t -> "+in+", tts) AS twt"+
		" FROM (?) AS o ANY LEFT JOIN (?) AS t USING (person)", orders, touches)
	// A lone weight stands for an order without touches: its row is on no entity.
	weighted := expr("SELECT "+cols+", tw, twt, if(length(tw) = 0, [toFloat64(1)], "+weights(p.credits.model)+") AS wt FROM (?)", joined)
	cum := expr("SELECT *, arrayCumSum(wt) AS cw, cw[length(cw)] AS wsum FROM (?)", weighted)
	var shares []string
	for i, m := range orderMeasures {
		v := fmt.Sprintf("r%d", i)
		if !measureNamed(m).money {
			v += " * " + creditedCountSQL
		}
		shares = append(shares, fmt.Sprintf("toInt64(floor(%[1]s * (cw[i] / wsum))) - toInt64(floor(%[1]s * (if(i = 1, 0, cw[i - 1]) / wsum))) AS c_%[2]s", v, m))
	}
	ts := "ots"
	if p.credits.click {
		ts = "if(length(tw) = 0, ots, twt[i])"
	}
	// Without touches tw[i] is 0, and an array's element 0 is its type's default: key 0, which
	// no entity has, so the row's entity columns are empty.
	var named []string
	for _, c := range entityColumns {
		named = append(named, "e_"+c+" AS "+c)
	}
	return expr("SELECT project_id, ts, "+strings.Join(named, ", ")+", currency, c_"+strings.Join(orderMeasures, ", c_")+
		" FROM (SELECT project_id, "+ts+" AS ts, tek[tw[i]] AS ek, currency, "+strings.Join(shares, ", ")+
		" FROM (?) ARRAY JOIN arrayEnumerate(wt) AS i) AS c ANY LEFT JOIN (?) AS e USING (ek)", cum, p.entities(touched))
}

// entityColumns are the columns that name a touch's ad entity.
var entityColumns = []string{"source", "connection_id", "account_id", "campaign_id", "adset_id", "ad_id"}

// entityKey is a touch's entity as a number: crediting carries it instead of six strings.
var entityKey = "cityHash64(" + strings.Join(entityColumns, ", ") + ")"

// entities is every entity of the journeys rows that match where, with its key ek, as columns
// e_<column> (ClickHouse 18.16 refuses an aggregate named as its column).
func (p *plan) entities(where fragment) fragment {
	var anys []string
	for _, c := range entityColumns {
		anys = append(anys, "any("+c+") AS e_"+c)
	}
	return expr("SELECT "+entityKey+" AS ek, "+strings.Join(anys, ", ")+" FROM journeys WHERE ? GROUP BY ek", where)
}

// weights is the model's weight of each touch of tw (in time order, at the times twt), as a Float64 array: the
// allocation normalises them.
func weights(model string) string {
	switch model {
	case ModelFirstClick:
		return "arrayMap(i -> toFloat64(i = 1), arrayEnumerate(tw))"
	case ModelLinear:
		return "arrayMap(i -> toFloat64(1), arrayEnumerate(tw))"
	case ModelPositionBased:
		// 40/20/40: the first and last touches 40 % each, the middle ones share 20 %; one touch
		// takes all, two share half each.
		return "arrayMap(i -> if(length(tw) = 1, 1, if(length(tw) = 2, 0.5, if(i = 1 OR i = length(tw), 0.4, 0.2 / (length(tw) - 2)))), arrayEnumerate(tw))"
	case ModelTimeDecay:
		return "arrayMap(t -> pow(2, (toFloat64(t) - toFloat64(ots)) / " + strconv.Itoa(timeDecayHalfLife) + "), twt)"
	default: // last_click
		return "arrayMap(i -> toFloat64(i = length(tw)), arrayEnumerate(tw))"
	}
}

// creditedDays widens the local days [first, after) of a crediting plan to the days of every
// journey row its answer reads: touches up to a window (and the pad) before, and by click date
// orders up to a window after.
func (p *plan) creditedDays(first, after time.Time) DayRange {
	pad := int((p.credits.window + dayPad) / (24 * time.Hour))
	out := DayRange{First: first.AddDate(0, 0, -pad), After: after.AddDate(0, 0, int(dayPad/(24*time.Hour)))}
	if p.credits.click {
		out.After = out.After.AddDate(0, 0, pad)
	}
	return out
}

// AttributionChoices is what GET /v3/fields says metadata.attribution takes.
type AttributionChoices struct {
	Models     []string    `json:"models"`
	Dates      []string    `json:"dates"`
	WindowDays WindowRange `json:"window_days"`
}

// WindowRange is the range and default of window_days.
type WindowRange struct {
	Min     int `json:"min"`
	Max     int `json:"max"`
	Default int `json:"default"`
}

var attributionChoices = AttributionChoices{Models: Models, Dates: AttributionDates,
	WindowDays: WindowRange{Min: 1, Max: MaxWindowDays, Default: DefaultWindowDays}}

// AttributionUsed is the attribution a query is answered with, defaults filled in (explain).
type AttributionUsed struct {
	Model      string `json:"model"`
	WindowDays int    `json:"window_days"`
	Date       string `json:"date"`
}

func (c credits) used() AttributionUsed {
	u := AttributionUsed{Model: c.model, WindowDays: int(c.window / (24 * time.Hour)), Date: DateConversion}
	if u.Model == "" {
		u.Model = ModelReported
	}
	if u.WindowDays == 0 {
		u.WindowDays = DefaultWindowDays
	}
	if c.click {
		u.Date = DateClick
	}
	return u
}

// asPerson adds to rows (with a lead_id column) person: the lead that its lead was last merged
// into, else its own, so that touches and orders found under different identifiers of one person
// meet.
func (p *plan) asPerson(rows fragment) fragment {
	return expr("SELECT *, if(root = '', lead_id, root) AS person FROM (?) AS r ANY LEFT JOIN"+
		" (SELECT lead_id, argMax(merged_into, ts) AS root FROM journeys WHERE project_id = ? AND kind = 'merge' GROUP BY lead_id)"+
		" AS merges USING (lead_id)", rows, p.projectID)
}
