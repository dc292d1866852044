// Package attribref computes what the attribution models must credit, independently of the
// engine and of the credit writer (facts.Credits): it is written from the contract only (CONTRACT
// "Query: attribution models" and "Query: views, cross-channel attribution and identity"), in
// float weights and a plain loop, so that the tests that compare the engine's answers with it
// (the engine's over journeys written into ClickHouse, the api's over traffic sent through the
// HTTP routes) catch an error of either. One place for the models' arithmetic in the tests.
package attribref

import (
	"cmp"
	"math"
	"slices"
	"time"

	"mtk/facts"
)

// Touch is a marketing touch of a person: an ad's (Entity set) or one that is no ad (an e-mail,
// a WhatsApp message, an organic referrer), with its traffic dimensions.
type Touch struct {
	Person string
	At     time.Time
	Entity facts.AdEntity // zero: no ad
	Dims   facts.TouchDims
}

// IsAd says whether the touch's UTM resolves to an ad entity.
func (t Touch) IsAd() bool { return t.Entity != facts.AdEntity{} }

// HasUTM says whether the touch carries a UTM parameter (what reported reads).
func (t Touch) HasUTM() bool {
	d := t.Dims
	return d.UTMSource != "" || d.UTMMedium != "" || d.UTMCampaign != "" || d.UTMContent != "" || d.UTMTerm != ""
}

// compare orders touches of one instant field by field: entity, then dimensions.
func (t Touch) compare(o Touch) int {
	key := func(x Touch) []string {
		e, d := x.Entity, x.Dims
		return []string{e.Source, e.ConnectionID, e.AccountID, e.CampaignID, e.AdsetID, e.AdID, d.UTMSource, d.UTMMedium,
			d.UTMCampaign, d.UTMContent, d.UTMTerm, d.ReferrerHost, d.LandingPath, d.Device}
	}
	return cmp.Or(t.At.Compare(o.At), slices.Compare(key(t), key(o)))
}

// OrderRow is one signed row of an order of Person ("" when the order names nobody): a sale, or
// a row that takes it back (a refund, a move to another person). Rows of one order, person and
// instant are netted.
type OrderRow struct {
	Person, Order string
	At            time.Time
	Revenue       int64 // micros
	Count         int64 // approved orders
	// Own is the order's own UTM as a touch at the order's time (nil: none): reported credits it
	// before any touch of the person.
	Own *Touch
}

// Credit is one credit: an order's value share on a touch (none: Entity and Dims zero, the
// unattributed part), at the order's time or (by click date) the touch's.
type Credit struct {
	At      time.Time
	Entity  facts.AdEntity
	Dims    facts.TouchDims
	Revenue int64 // micros
	Count   int64 // units of facts.CountUnit
}

// netOrder is an order's rows summed.
type netOrder struct {
	person, order string
	at            time.Time
	revenue       int64
	count         int64
	own           *Touch
}

// net sums the rows of each order, person and instant, in the order they first appear, and
// leaves out those that sum to nothing.
func net(rows []OrderRow) []netOrder {
	type key struct {
		person, order string
		at            int64
	}
	idx := map[key]int{}
	var out []netOrder
	for _, r := range rows {
		k := key{r.Person, r.Order, r.At.Unix()}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, netOrder{person: r.Person, order: r.Order, at: r.At.UTC()})
		}
		out[i].revenue += r.Revenue
		out[i].count += r.Count
		if r.Own != nil {
			out[i].own = r.Own
		}
	}
	return slices.DeleteFunc(out, func(o netOrder) bool { return o.revenue == 0 && o.count == 0 })
}

// Credits credits orders under a crediting model: each order's person's touches of the touch set
// (facts.TouchesAds: those with an ad) in [order - window, order], in (time, entity, dimensions)
// order, weighed by the model, share each value by cumulative shares floor(v * W_i / W) -
// floor(v * W_(i-1) / W); an order with no such touch is one unattributed credit. By click date
// a credit sits on its touch's time.
func Credits(touches []Touch, orders []OrderRow, model string, window time.Duration, click bool, set string) []Credit {
	byPerson := map[string][]Touch{}
	for _, t := range touches {
		if t.Person != "" && (set == facts.TouchesAll || t.IsAd()) {
			byPerson[t.Person] = append(byPerson[t.Person], t)
		}
	}
	var out []Credit
	for _, o := range net(orders) {
		var in []Touch
		if o.person != "" {
			for _, t := range byPerson[o.person] {
				if !t.At.Before(o.at.Add(-window)) && !t.At.After(o.at) {
					in = append(in, t)
				}
			}
		}
		if len(in) == 0 {
			out = append(out, Credit{At: o.at, Revenue: o.revenue, Count: o.count * facts.CountUnit})
			continue
		}
		slices.SortFunc(in, Touch.compare)
		n := len(in)
		cw := make([]float64, n)
		sum := 0.0
		for i, t := range in {
			sum += weight(model, i+1, n, o.at.Sub(t.At))
			cw[i] = sum
		}
		var prevRevenue, prevCount int64
		for i, t := range in {
			revenue := int64(math.Floor(float64(o.revenue) * (cw[i] / sum)))
			count := int64(math.Floor(float64(o.count*facts.CountUnit) * (cw[i] / sum)))
			c := Credit{At: o.at, Entity: t.Entity, Dims: t.Dims, Revenue: revenue - prevRevenue, Count: count - prevCount}
			if click {
				c.At = t.At
			}
			out = append(out, c)
			prevRevenue, prevCount = revenue, count
		}
	}
	return out
}

// weight is the i-th of n touches' weight under model, age before the order.
func weight(model string, i, n int, age time.Duration) float64 {
	switch model {
	case facts.ModelFirstClick:
		return b2f(i == 1)
	case facts.ModelLinear:
		return 1
	case facts.ModelPositionBased:
		switch {
		case n == 1:
			return 1
		case n == 2:
			return 0.5
		case i == 1 || i == n:
			return 0.4
		}
		return 0.2 / float64(n-2)
	case facts.ModelTimeDecay:
		return math.Pow(2, -age.Seconds()/(7*24*3600))
	}
	return b2f(i == n) // last_click
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Reported credits each order whole, at its time, on its own UTM, else on the latest touch of
// its person carrying a UTM at or before the order (never one after it), else on nothing. A
// credit carries the credited UTM only (an order's referrer, landing path and device are its
// person's latest event's, whatever it carried).
func Reported(touches []Touch, orders []OrderRow) []Credit {
	byPerson := map[string][]Touch{}
	for _, t := range touches {
		if t.Person != "" && t.HasUTM() {
			byPerson[t.Person] = append(byPerson[t.Person], t)
		}
	}
	var out []Credit
	for _, o := range net(orders) {
		c := Credit{At: o.at, Revenue: o.revenue, Count: o.count * facts.CountUnit}
		from := o.own
		if from == nil && o.person != "" {
			for _, t := range byPerson[o.person] {
				if !t.At.After(o.at) && (from == nil || t.At.After(from.At)) {
					from = &t
				}
			}
		}
		if from != nil {
			d := from.Dims
			c.Entity, c.Dims = from.Entity, facts.TouchDims{UTMSource: d.UTMSource, UTMMedium: d.UTMMedium,
				UTMCampaign: d.UTMCampaign, UTMContent: d.UTMContent, UTMTerm: d.UTMTerm}
		}
		out = append(out, c)
	}
	return out
}

// Count is a credited count of units of facts.CountUnit as an answer shows it: rounded to 4
// decimals, half away from zero.
func Count(units float64) float64 {
	return math.Round(units/(facts.CountUnit/10_000)) / 10_000
}
