package engine

import (
	"math/bits"
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
		return t.creditsName()
	}
	return p.tableName(t)
}

// creditedSource is what the first aggregation reads from resolution t when a model credits
// orders, as columns v_<measure>: the fact table's rows with their order measures left out (when
// other measures are asked) and the credits table's rows of the model, date and window credited
// to an ad entity, both restricted by where (the columns both share).
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
			fromCredits = append(fromCredits, m.name+" AS "+v)
		} else {
			fromFacts = append(fromFacts, p.sumSource(m)+" AS "+v)
			fromCredits = append(fromCredits, "toInt64(0) AS "+v)
		}
	}
	// The ad view counts what is credited to ad entities: an order's unattributed part is on no
	// entity and in no total, so a total is the sum of its entity rows under every model, as
	// under reported (whose fact tables hold attributed orders only).
	// The touch set is the ad view's, facts.TouchesAds, until a query can choose it.
	credited := expr("SELECT "+keys+", "+strings.Join(fromCredits, ", ")+" FROM "+t.creditsName()+
		" WHERE ? AND model = ? AND touches = ? AND by_click = ? AND ? AND source != ''", where, p.credits.model,
		facts.TouchesAds, bit(p.credits.click), p.windowCond(t))
	if !others { // the fact tables would add only zeros
		return expr("(?)", credited)
	}
	return expr("(SELECT "+keys+", "+strings.Join(fromFacts, ", ")+" FROM "+p.tableName(t)+" WHERE ? UNION ALL ?)",
		where, credited)
}

// windowCond picks the deltas that make the credits of the plan's window w: those entering at
// w days or fewer. The rollups hold each delta in every aligned block of 1, 2, 4, ... 64 windows
// that contains its own (schema/clickhouse/0011_credits.sql); the popcount(w) blocks of w's bits,
// largest first, tile [1, w] exactly.
func (p *plan) windowCond(t table) fragment {
	w := p.credits.windowDays
	if t == tableRaw {
		return expr("window_days <= ?", w)
	}
	var blocks []fragment
	start := 0
	for l := bits.Len(uint(w)) - 1; l >= 0; l-- {
		if w&(1<<l) != 0 {
			blocks = append(blocks, expr("(window_lo = ? AND window_hi = ?)", start+1, start+(1<<l)))
			start += 1 << l
		}
	}
	return expr("(?)", join(" OR ", blocks...))
}

// bit is b as by_click stores it (an int, which Bind writes as a literal).
func bit(b bool) int {
	if b {
		return 1
	}
	return 0
}
