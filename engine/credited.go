package engine

import (
	"strings"

	"mtk/facts"
)

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

// creditedMeasures are the names of the measures the credits hold.
var creditedMeasures = facts.ColumnNames(facts.CreditsFamily.Measures)

func isOrderMeasure(m measure) bool { return contains(creditedMeasures, m.name) }

// creditsCount reports whether measure m is a count that the plan's model credits: a sum of
// facts.CountUnit parts of an order.
func (p *plan) creditsCount(m measure) bool { return !m.money && isOrderMeasure(m) && p.crediting() }

// readTable is the table an attempt on resolution t reads: the credits when the plan credits
// order metrics (their settings and probe are the credits table's), else the family's.
func (p *plan) readTable(t table) string {
	if p.crediting() {
		return p.creditsTable(t)
	}
	return p.tableName(t)
}

// creditsTable is the credits table the plan reads at resolution t: the rollup without the ad
// entity when it has one at t and the plan reads no entity, which makes fewer rows and columns
// to read (a traffic dimension's value is shared by many ads), else the table of every key.
func (p *plan) creditsTable(t table) string {
	if p.creditsByTraffic(t) {
		return creditTrafficTables[t]
	}
	return t.creditsName()
}

// creditsByTraffic reports whether the plan reads the credits of resolution t from their rollup
// without the ad entity: it has one at t, and the plan is in the traffic view with no level and
// no source, connection or entity filter (it groups and filters by traffic dimensions only).
func (p *plan) creditsByTraffic(t table) bool {
	if creditTrafficTables[t] == "" || p.view() != ViewTraffic || p.level != "" || p.source != "" || len(p.connectionIDs) > 0 {
		return false
	}
	for _, f := range p.dimFilters {
		if !dimensionsByName[f.Member].business {
			return false
		}
	}
	return true
}

// creditedSource is what the first aggregation reads from resolution t when a model credits
// orders, as columns v_<measure> beside the keys the fact table t names them by: the fact
// table's rows (restricted by factsWhere) with their order measures left out, when other
// measures are asked, and the credits table's rows of the model, touch set, date and window in
// timeCond, restricted by the query's scope on the credits' own columns.
//
// The ad view counts what is credited to ad entities: an order's unattributed part and the
// shares of touches that are no ad (touch set "all") are on no entity and in no total, so a total
// is the sum of its entity rows under every model, as under reported (whose fact tables hold
// attributed orders only). The traffic view counts every credit: each carries its touch's
// traffic dimensions, and the unattributed part none, so that its rows by any dimension sum to
// the orders' total, the part with no touch on the row whose dimensions are all null.
func (p *plan) creditedSource(t table, timeCond, factsWhere fragment) fragment {
	factKeys, creditKeys := p.creditedKeys(t)
	var fromFacts, fromCredits []string
	others := false
	for _, m := range p.measures.members() {
		others = others || !isOrderMeasure(m)
		v := "v_" + m.name
		if isOrderMeasure(m) {
			fromFacts = append(fromFacts, "toInt64(0) AS "+v)
			fromCredits = append(fromCredits, m.name+" AS "+v)
		} else {
			fromFacts = append(fromFacts, p.sumSource(m)+" AS "+v)
			fromCredits = append(fromCredits, "toInt64(0) AS "+v)
		}
	}
	onCredits := *p
	if onCredits.family == familyBusinessDim { // the credits hold every dimension as its own column
		onCredits.family = familyBusiness
	}
	where := join(" AND ", append([]fragment{expr("project_id = ?", p.projectID), timeCond}, onCredits.scopeFilters(t)...)...)
	cond := "? AND model = ? AND touches = ? AND by_click = ? AND ?"
	if p.view() == ViewAds {
		cond += " AND source != ''"
	}
	credited := expr("SELECT "+strings.Join(append(creditKeys, fromCredits...), ", ")+" FROM "+p.creditsTable(t)+" WHERE "+cond,
		where, p.credits.model, p.credits.touches, bit(p.credits.click), p.windowCond())
	if !others { // the fact tables would add only zeros
		return expr("(?)", credited)
	}
	return expr("(SELECT "+strings.Join(append(factKeys, fromFacts...), ", ")+" FROM "+p.tableName(t)+" WHERE ? UNION ALL ?)",
		factsWhere, credited)
}

// creditedKeys are the key columns creditedSource gives from resolution t, as the fact table
// names them, and the credits table's expression of each: the times, the ad entity (unless t is
// a per-dimension rollup or the credits are read without it), the plan's dimensions and the
// currency.
func (p *plan) creditedKeys(t table) (factKeys, creditKeys []string) {
	factKeys = []string{"project_id", "day"}
	switch t {
	case tableRaw:
		factKeys = []string{"project_id", "ts", "hour", "day"}
	case tableHourly:
		factKeys = []string{"project_id", "hour", "day"}
	}
	if !p.onDimensionRollup(t) && !p.creditsByTraffic(t) {
		factKeys = append(factKeys, facts.AdEntityColumns...)
	}
	creditKeys = append([]string{}, factKeys...)
	for _, d := range p.dims {
		c := p.dimColumn(d, t)
		factKeys = append(factKeys, c)
		if c != d.column {
			creditKeys = append(creditKeys, d.column+" AS "+c)
		} else {
			creditKeys = append(creditKeys, c)
		}
	}
	return append(factKeys, "currency"), append(creditKeys, "currency")
}

// windowCond picks the deltas that make the credits of the plan's window w: those entering at
// w days or fewer. Every credit table keeps each delta's own window_days, a range of its
// sorting key.
func (p *plan) windowCond() fragment {
	return expr(facts.CreditsFamily.Window.Name+" <= ?", p.credits.windowDays)
}

// bit is b as by_click stores it (an int, which Bind writes as a literal).
func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}
