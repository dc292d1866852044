package engine

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
}

// measures in the one order the compiler emits them, so that SQL is deterministic.
var measures = indexed([]measure{
	{name: "spend", money: true, ad: true},
	{name: "impressions", ad: true},
	{name: "alpha_impressions", expr: "if(source = 'alpha_ads', impressions, 0)", ad: true},
	{name: "clicks", ad: true},
	{name: "reach", ad: true},
	{name: "video_plays", ad: true},
	{name: "video_views_3s", ad: true},
	{name: "video_views_p75", ad: true},
	{name: "page_views"},
	{name: "leads"},
	{name: "initiate_checkout"},
	{name: "tx_revenue", money: true},
	{name: "tx_count"},
	{name: "tx_count_total"},
	{name: "tx_count_pending"},
	{name: "tx_count_refunded"},
	{name: "tx_product_costs", money: true},
})

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
