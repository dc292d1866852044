package facts

import (
	"slices"
	"strings"
)

// Measure names one additive measure; Values hold each at its index.
type Measure int

// The measures of every fact family, in the column order of the family's tables (a family holds
// those of the origins it keeps, see Family). Adding one takes its line here and in Specs, and a
// migration adding its column to each table of the families that keep it (family.go renders the
// lines; the conformance test names any table that lacks it); the writers, the outbox codecs and
// the engine's registry derive their lists from Specs.
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
	TxRevenueNet
	TxCount
	TxCountTotal
	TxCountPending
	TxCountRefunded
	TxProductCosts
	TxUnits
	NumMeasures
)

// Origin says where a measure comes from, which decides the families that keep it.
type Origin uint8

// The origins of measures.
const (
	// OriginAd is what the ad networks report (synced, known per hour at best): the ad facts only.
	OriginAd Origin = iota + 1
	// OriginEvent is what tracking events count: the ad facts (attributed) and the business facts.
	OriginEvent
	// OriginOrder is an order's value or count: every family, since models credit orders.
	OriginOrder
	// OriginOrderLine is an order's detail that only the business family splits it by (net revenue
	// in the commission's currency, units per product line).
	OriginOrderLine
)

// Spec describes a measure.
type Spec struct {
	// Column is its Int64 column in every table that keeps it.
	Column string
	// Money marks micros of the row's currency (MicrosPerMinor); the others are counts.
	Money  bool
	Origin Origin
}

// Ad reports whether the ad networks report the measure (the others are business facts from
// events and orders, known to the minute, which the fact outbox carries).
func (s Spec) Ad() bool { return s.Origin == OriginAd }

// Specs are the measures' descriptions, by Measure.
var Specs = [NumMeasures]Spec{
	Spend:            {Column: "spend", Money: true, Origin: OriginAd},
	Impressions:      {Column: "impressions", Origin: OriginAd},
	Clicks:           {Column: "clicks", Origin: OriginAd},
	Reach:            {Column: "reach", Origin: OriginAd},
	VideoPlays:       {Column: "video_plays", Origin: OriginAd},
	VideoViews3s:     {Column: "video_views_3s", Origin: OriginAd},
	VideoViewsP75:    {Column: "video_views_p75", Origin: OriginAd},
	PageViews:        {Column: "page_views", Origin: OriginEvent},
	Leads:            {Column: "leads", Origin: OriginEvent},
	InitiateCheckout: {Column: "initiate_checkout", Origin: OriginEvent},
	TxRevenue:        {Column: "tx_revenue", Money: true, Origin: OriginOrder},
	TxRevenueNet:     {Column: "tx_revenue_net", Money: true, Origin: OriginOrderLine},
	TxCount:          {Column: "tx_count", Origin: OriginOrder},
	TxCountTotal:     {Column: "tx_count_total", Origin: OriginOrder},
	TxCountPending:   {Column: "tx_count_pending", Origin: OriginOrder},
	TxCountRefunded:  {Column: "tx_count_refunded", Origin: OriginOrder},
	TxProductCosts:   {Column: "tx_product_costs", Money: true, Origin: OriginOrder},
	TxUnits:          {Column: "tx_units", Origin: OriginOrderLine},
}

// Values are a fact's measures, by Measure.
type Values [NumMeasures]int64

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
	// AdMeasures are what the ad networks report (sync's buckets and batches keep these).
	AdMeasures = From(OriginAd)
	// Business are the business measures of the ad facts (the fact outbox carries these).
	Business = From(OriginEvent, OriginOrder)
)

// From are the measures of those origins, in Measure order.
func From(origins ...Origin) []Measure {
	var out []Measure
	for m, s := range Specs {
		if slices.Contains(origins, s.Origin) {
			out = append(out, Measure(m))
		}
	}
	return out
}

// ColumnNames are ms's columns, in order.
func ColumnNames(ms []Measure) []string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = Specs[m].Column
	}
	return names
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
