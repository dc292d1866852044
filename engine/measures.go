package engine

import "mtk/facts"

// A measure is a summed column of the fact tables. Every metric is computed from the sums of a
// few measures over the row's group; money measures are Int64 micros of the fact's currency in
// storage and exact Decimal(38, 8) micros of the answer's currency once converted.
type measure struct {
	name  string
	money bool
	// index is the measure's place in measures, where a row's sums keep it.
	index int
	// expr is what the first aggregation sums: the column itself, or an expression over it.
	expr string
	// ad marks what the ad networks report: known per hour at best, and per day only for older
	// days (see spans.go). The others (events, orders) are known to the minute.
	ad bool
	// event marks what tracking events count (page views, leads, checkouts); business marks a
	// measure that only the business family holds.
	event, business bool
}

// measures are the fact tables' (facts.Specs, in their order) and alpha_impressions, the first
// network's impressions, right after impressions: the one order the compiler emits them in, so
// that SQL is deterministic.
var measures = indexed(func() []measure {
	var out []measure
	for _, m := range facts.FactsFamily.Measures {
		s := facts.Specs[m]
		out = append(out, measure{name: s.Column, money: s.Money, ad: s.Ad(), event: s.Origin == facts.OriginEvent})
		if m == facts.Impressions {
			out = append(out, measure{name: "alpha_impressions", expr: "if(source = 'alpha_ads', impressions, 0)", ad: true})
		}
	}
	// Units (approved quantity) exist per order line, in the business family only.
	return append(out, measure{name: facts.Specs[facts.TxUnits].Column, business: true})
}())

// indexed sets each measure's index. (The registries of metrics, initialised from measures,
// read the indexes: package variables are initialised in the order of their dependencies, so
// before them, where an init function would come after.)
func indexed(ms []measure) []measure {
	for i := range ms {
		ms[i].index = i
	}
	return ms
}

// measureNamed is the measure of that name; it panics for another name, so that a metric of the
// registry naming no measure stops the program at start-up.
func measureNamed(name string) measure {
	for _, m := range measures {
		if m.name == name {
			return m
		}
	}
	panic("engine: no measure " + name)
}

func (m measure) sumSource() string {
	if m.expr != "" {
		return m.expr
	}
	return m.name
}

// measureSet is a set of measure names; members() lists them in registry order.
type measureSet map[string]bool

func (s measureSet) members() []measure {
	var out []measure
	for _, m := range measures {
		if s[m.name] {
			out = append(out, m)
		}
	}
	return out
}

// anyAd reports whether the set holds a measure the ad networks report.
func (s measureSet) anyAd() bool {
	for _, m := range s.members() {
		if m.ad {
			return true
		}
	}
	return false
}

func (s measureSet) anyMoney() bool {
	for _, m := range s.members() {
		if m.money {
			return true
		}
	}
	return false
}
