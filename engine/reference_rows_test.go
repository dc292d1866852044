package engine_test

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"mtk/engine"
)

// evaluate computes every metric of the row (the asked fields and those filters or order use).
func evaluate(r *refRow, q refQuery, level string) {
	r.values, r.sortVals = map[string]any{}, map[string]*float64{}
	c := func(n string) decimal.Decimal { return decimal.NewFromInt(r.counts[n]) }
	m := func(n string) decimal.Decimal { return r.money[n].Shift(-6) } // major units, exact
	fl := func(d decimal.Decimal) *float64 { f := d.InexactFloat64(); return &f }
	money := func(name string, d decimal.Decimal) {
		r.values[name] = d.Round(2).StringFixed(2)
		r.sortVals[name] = fl(d)
	}
	perUnit := func(name string, num, den decimal.Decimal) {
		if den.IsZero() {
			r.values[name], r.sortVals[name] = (*float64)(nil), nil
			return
		}
		r.values[name] = num.DivRound(den, 2).StringFixed(2)
		r.sortVals[name] = fl(num.DivRound(den, 20))
	}
	frac := func(name string, num, den decimal.Decimal) {
		if den.IsZero() {
			r.values[name], r.sortVals[name] = (*float64)(nil), nil
			return
		}
		f := num.DivRound(den, 20).InexactFloat64()
		r.values[name], r.sortVals[name] = &f, &f
	}
	for _, n := range []string{"impressions", "clicks", "reach", "video_plays", "video_views_3s", "video_views_p75",
		"page_views", "leads", "initiate_checkout", "tx_count", "tx_count_total", "tx_count_pending", "tx_count_refunded"} {
		r.values[n] = r.counts[n]
		f := float64(r.counts[n])
		r.sortVals[n] = &f
	}
	for _, n := range moneyMeasures {
		money(n, m(n))
	}
	frac("ctr", c("clicks"), c("impressions"))
	perUnit("cpc", m("spend"), c("clicks"))
	perUnit("cpm", m("spend").Mul(decimal.NewFromInt(1000)), c("impressions"))
	frac("frequency", c("alpha_impressions"), c("reach"))
	frac("hook_rate", c("video_views_3s"), c("impressions"))
	frac("hold_rate", c("video_views_p75"), c("impressions"))
	frac("play_rate", c("video_plays"), c("impressions"))
	frac("cta_rate", c("clicks"), c("video_views_p75"))
	frac("roas", m("tx_revenue"), m("spend"))
	frac("roi", m("tx_revenue").Sub(m("spend")), m("spend"))
	money("profit", m("tx_revenue").Sub(m("spend")).Sub(m("tx_product_costs")))
	perUnit("aov", m("tx_revenue"), c("tx_count"))
	perUnit("cpa", m("spend"), c("tx_count"))
	perUnit("cpl", m("spend"), c("leads"))
	// A money measure with an amount whose rate is missing is unknown: so is every metric on it.
	for measure, metrics := range map[string][]string{
		"spend":            {"spend", "cpc", "cpm", "roas", "roi", "profit", "cpa", "cpl"},
		"tx_revenue":       {"tx_revenue", "roas", "roi", "profit", "aov"},
		"tx_product_costs": {"tx_product_costs", "profit"},
	} {
		if r.unknown[measure] {
			for _, name := range metrics {
				r.values[name], r.sortVals[name] = nil, nil
			}
		}
	}
	if (q.in.Source != "" && q.in.Source != "alpha_ads") || (level != "" && r.source != "alpha_ads") {
		r.values["reach"], r.values["frequency"] = nil, nil
	}
}

func metricsMatch(r *refRow, filters []engine.Filter) bool {
	for _, f := range filters {
		v, isMetric := r.sortVals[f.Member]
		if _, ok := r.values[f.Member]; !ok && !isMetric {
			continue // a dimension filter
		}
		if f.Operator == "set" || f.Operator == "notSet" {
			if (v != nil) != (f.Operator == "set") {
				return false
			}
			continue
		}
		if v == nil {
			return false
		}
		any := false
		for _, s := range f.Values {
			t, _ := strconv.ParseFloat(s, 64)
			switch f.Operator {
			case "equals", "notEquals":
				any = any || *v == t
			case "gt":
				any = any || *v > t
			case "gte":
				any = any || *v >= t
			case "lt":
				any = any || *v < t
			case "lte":
				any = any || *v <= t
			}
		}
		if f.Operator == "notEquals" {
			any = !any
		}
		if !any {
			return false
		}
	}
	return true
}

func sortRows(rows []refRow, q refQuery, level string) {
	type term struct {
		field string
		desc  bool
	}
	var terms []term
	used := map[string]bool{}
	add := func(f string, desc bool) { terms = append(terms, term{f, desc}); used[f] = true }
	if len(q.in.Order) > 0 {
		for _, k := range q.in.Order {
			add(k.Field, strings.EqualFold(k.Direction, "desc"))
		}
	} else {
		if q.gran != "" {
			add("date", false)
		}
		if q.gran != "" || level != "" {
			add(q.in.Fields[0], true)
		}
	}
	if q.gran != "" && !used["date"] {
		add("date", false)
	}
	if level != "" {
		for _, k := range []string{"source", level + "_id"} {
			if !used[k] {
				add(k, false)
			}
		}
	}
	cmp := func(a, b *refRow, t term) int {
		var c int
		switch t.field {
		case "date":
			c = a.bucket.Compare(b.bucket)
		case "source":
			c = strings.Compare(a.source, b.source)
		case level + "_id":
			c = strings.Compare(a.id, b.id)
		case level + "_name":
			c = strings.Compare(a.name, b.name)
		default:
			x, y := a.sortVals[t.field], b.sortVals[t.field]
			switch {
			case x == nil && y == nil:
				return 0
			case x == nil:
				return 1 // NULLS LAST either way
			case y == nil:
				return -1
			}
			c = cmpFloat(*x, *y)
		}
		if t.desc {
			c = -c
		}
		return c
	}
	sort.SliceStable(rows, func(i, j int) bool {
		for _, t := range terms {
			if c := cmp(&rows[i], &rows[j], t); c != 0 {
				return c < 0
			}
		}
		return false
	})
}

func cmpFloat(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// close reports whether two ratios agree to 1e-9, relatively.
func close(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}
