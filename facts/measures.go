package facts

import "strings"

// Measure names one additive measure; a Fact's Values hold each at its index.
type Measure int

// The measures, in the column order of every fact table. Adding one takes a migration (the column
// in each fact table, rollup and view) and its line here and in Specs; every writer, the outbox
// and the engine's registry derive their lists from Specs.
const (
	Spend Measure = iota
	Impressions
	Clicks
	Reach
	VideoPlays
	VideoViews3s
	VideoViewsP75
	PageViews
	Leads
	InitiateCheckout
	TxRevenue
	TxCount
	TxCountTotal
	TxCountPending
	TxCountRefunded
	TxProductCosts
	numMeasures
)

// Spec describes a measure.
type Spec struct {
	// Column is its Int64 column in every fact table.
	Column string
	// Money marks micros of the fact's currency (MicrosPerMinor); the others are counts.
	Money bool
	// Ad marks what the ad networks report (synced, known per hour at best); the others are
	// business facts from events and orders, known to the minute, which the fact outbox carries.
	Ad bool
}

// Specs are the measures' descriptions, by Measure.
var Specs = [numMeasures]Spec{
	Spend:            {Column: "spend", Money: true, Ad: true},
	Impressions:      {Column: "impressions", Ad: true},
	Clicks:           {Column: "clicks", Ad: true},
	Reach:            {Column: "reach", Ad: true},
	VideoPlays:       {Column: "video_plays", Ad: true},
	VideoViews3s:     {Column: "video_views_3s", Ad: true},
	VideoViewsP75:    {Column: "video_views_p75", Ad: true},
	PageViews:        {Column: "page_views"},
	Leads:            {Column: "leads"},
	InitiateCheckout: {Column: "initiate_checkout"},
	TxRevenue:        {Column: "tx_revenue", Money: true},
	TxCount:          {Column: "tx_count"},
	TxCountTotal:     {Column: "tx_count_total"},
	TxCountPending:   {Column: "tx_count_pending"},
	TxCountRefunded:  {Column: "tx_count_refunded"},
	TxProductCosts:   {Column: "tx_product_costs", Money: true},
}

// Values are a fact's measures, by Measure.
type Values [numMeasures]int64

// Add returns v + o.
func (v Values) Add(o Values) Values {
	for i := range v {
		v[i] += o[i]
	}
	return v
}

// Sub returns v - o.
func (v Values) Sub(o Values) Values {
	for i := range v {
		v[i] -= o[i]
	}
	return v
}

// Neg returns -v.
func (v Values) Neg() Values { return Values{}.Sub(v) }

// IsZero reports whether every measure is 0.
func (v Values) IsZero() bool { return v == Values{} }

// The measure lists writers use, in Measure order.
var (
	// All is every measure.
	All = selectMeasures(func(Spec) bool { return true })
	// AdMeasures are what the ad networks report (sync's buckets and batches keep these).
	AdMeasures = selectMeasures(func(s Spec) bool { return s.Ad })
	// Business are what events and orders produce (the fact outbox carries these).
	Business = selectMeasures(func(s Spec) bool { return !s.Ad })
)

func selectMeasures(keep func(Spec) bool) []Measure {
	var out []Measure
	for m := range numMeasures {
		if keep(Specs[m]) {
			out = append(out, m)
		}
	}
	return out
}

// Columns lists ms's columns, each with prefix, separated by ", ".
func Columns(ms []Measure, prefix string) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = prefix + Specs[m].Column
	}
	return strings.Join(names, ", ")
}

// Pick returns v's values of ms, in order (the arguments of an insert).
func (v *Values) Pick(ms []Measure) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = v[m]
	}
	return out
}

// Dest returns pointers to v's values of ms, in order (the destinations of a scan).
func (v *Values) Dest(ms []Measure) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = &v[m]
	}
	return out
}
