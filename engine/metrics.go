package engine

import (
	"strings"

	"github.com/shopspring/decimal"

	"mtk/facts"
)

// Units of a metric's value.
const (
	UnitMoney = "money"
	UnitCount = "count"
	UnitRatio = "ratio"
)

// Categories of metrics.
const (
	CategoryBase        = "base"
	CategoryDerived     = "derived"
	CategoryAttribution = "attribution"
	CategoryFinancial   = "financial"
)

// Sources are the ad networks, in the order messages list them.
var Sources = []string{"alpha_ads", "beta_ads", "gamma_ads"}

const reachSource = "alpha_ads"

// Metric is a queryable field.
type Metric struct {
	Name     string   `json:"name"`
	Category string   `json:"category"`
	Unit     string   `json:"unit"`
	Formula  string   `json:"formula,omitempty"`
	Sources  []string `json:"sources"`

	needs []string
	// sql is the metric in display units (major units for money) over the summed measures, as
	// Float64 (or NULL for a ratio whose denominator is 0); it serves metric filters and ORDER BY.
	sql string
	// value computes the answer's value from the row's exact sums.
	value func(s sums) any
	// exact, for money that adds up across rows (a sum or difference of money measures), is
	// the row's exact amount in micros, which value rounds (allocate.go).
	exact func(s sums) decimal.Decimal
	// moneyNeeds are the indexes of the money measures among needs: the metric is null when one
	// of them is (a missing exchange rate).
	moneyNeeds []int
}

// Value kinds in a result row: int64 for counts, Money for money, *float64 (nil = null) for ratios.

// Money is an amount in major units, rounded to cents; it marshals as a JSON number with two
// decimals.
type Money struct{ decimal.Decimal }

// MarshalJSON writes the amount with exactly two decimals.
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.StringFixed(2)), nil }

// sums holds a row's measure sums by measure index: counts as integers, money as exact micros
// of the answer's currency, null where a missing exchange rate left it unknown.
type sums struct {
	money  []decimal.Decimal
	null   []bool
	counts []int64
	// credited marks the counts an attribution model credited: in units of facts.CountUnit.
	credited []bool
}

func newSums() sums {
	return sums{money: make([]decimal.Decimal, len(measures)), null: make([]bool, len(measures)),
		counts: make([]int64, len(measures)), credited: make([]bool, len(measures))}
}

// countUnit is how many units of count i make one: facts.CountUnit for a credited count.
func (s sums) countUnit(i int) int64 {
	if s.credited[i] {
		return facts.CountUnit
	}
	return 1
}

// anyNull reports whether one of the money measures (by index) is null.
func (s sums) anyNull(money []int) bool {
	for _, i := range money {
		if s.null[i] {
			return true
		}
	}
	return false
}

// zero reports whether measure m's sum is 0.
func (s sums) zero(m measure) bool {
	if m.money {
		return s.money[m.index].IsZero()
	}
	return s.counts[m.index] == 0
}

// float is measure m's sum as a float64 (within an ulp or two for money, see toFloat).
func (s sums) float(m measure) float64 {
	if m.money {
		return toFloat(s.money[m.index])
	}
	return float64(s.counts[m.index]) / float64(s.countUnit(m.index))
}

// creditedDecimals are the decimals an answer shows a credited count with.
const creditedDecimals = 4

// creditedCount is a credited count of c units of facts.CountUnit, as an answer shows it: the
// exact sum rounded once to creditedDecimals, half away from zero, as money is rounded.
func creditedCount(c int64) float64 {
	f, _ := decimal.New(c, 0).DivRound(decimal.New(facts.CountUnit, 0), creditedDecimals).Float64()
	return f
}

func moneySQL(m string) string { return "toFloat64(" + m + ") / 1000000" }

func ratioSQL(num, den string) string {
	return "if(" + den + " = 0, NULL, toFloat64(" + num + ") / toFloat64(" + den + "))"
}

func countMetric(name, category string, sources ...string) *Metric {
	i := measureNamed(name).index
	return &Metric{Name: name, Category: category, Unit: UnitCount, Sources: sourcesOr(sources),
		needs: []string{name}, sql: name,
		value: func(s sums) any {
			if s.credited[i] {
				f := creditedCount(s.counts[i])
				return &f
			}
			return s.counts[i]
		}}
}

func moneyMetric(name, category string) *Metric {
	i := measureNamed(name).index
	return additiveMoney(&Metric{Name: name, Category: category, Unit: UnitMoney, Sources: Sources,
		needs: []string{name}, sql: moneySQL(name)}, func(s sums) decimal.Decimal { return s.money[i] })
}

// additiveMoney gives m its exact amount and the value that rounds it to cents.
func additiveMoney(m *Metric, exact func(s sums) decimal.Decimal) *Metric {
	m.exact = exact
	m.value = func(s sums) any { return Money{cents(exact(s), 1, -6, one)} }
	return m
}

// ratio is num / den, a fraction computed as fraction computes it, null when den is 0.
func ratio(name, category, formula, num, den string, sources ...string) *Metric {
	n, d := measureNamed(num), measureNamed(den)
	return &Metric{Name: name, Category: category, Unit: UnitRatio, Formula: formula, Sources: sourcesOr(sources),
		needs: []string{num, den}, sql: ratioSQL(num, den),
		value: func(s sums) any {
			if s.zero(d) {
				return nil
			}
			return quotient(s.float(n), s.float(d))
		}}
}

// moneyPer is a money amount per unit of a count (times per), null when the count is 0.
func moneyPer(name, category, formula, num, den string, per int64) *Metric {
	n, d := measureNamed(num).index, measureNamed(den)
	if d.money {
		panic("engine: " + name + " divides by money")
	}
	sql := "if(" + den + " = 0, NULL, toFloat64(" + num + ") / toFloat64(" + den + ") / 1000000)"
	if per != 1 {
		sql = "if(" + den + " = 0, NULL, toFloat64(" + num + ") * " + decimal.NewFromInt(per).String() +
			" / toFloat64(" + den + ") / 1000000)"
	}
	return &Metric{Name: name, Category: category, Unit: UnitMoney, Formula: formula, Sources: Sources,
		needs: []string{num, den}, sql: sql,
		value: func(s sums) any {
			c := s.counts[d.index]
			if c == 0 {
				return nil
			}
			return Money{centsPer(s.money[n], per*s.countUnit(d.index), -6, c)}
		}}
}

func sourcesOr(s []string) []string {
	if len(s) == 0 {
		return Sources
	}
	return s
}

// The money measures that roi and profit combine.
var (
	spend        = measureNamed("spend").index
	revenue      = measureNamed("tx_revenue").index
	productCosts = measureNamed("tx_product_costs").index
)

// metricList is the registry in the order GET /v3/fields lists it.
var metricList = []*Metric{
	moneyMetric("spend", CategoryBase),
	countMetric("impressions", CategoryBase),
	countMetric("clicks", CategoryBase),
	countMetric("reach", CategoryBase, reachSource),
	countMetric("video_plays", CategoryBase),
	countMetric("video_views_3s", CategoryBase),
	countMetric("video_views_p75", CategoryBase),

	ratio("ctr", CategoryDerived, "clicks / impressions", "clicks", "impressions"),
	moneyPer("cpc", CategoryDerived, "spend / clicks", "spend", "clicks", 1),
	moneyPer("cpm", CategoryDerived, "(spend / impressions) * 1000", "spend", "impressions", 1000),
	ratio("frequency", CategoryDerived, "impressions / reach", "alpha_impressions", "reach", reachSource),
	ratio("hook_rate", CategoryDerived, "video_views_3s / impressions", "video_views_3s", "impressions"),
	ratio("hold_rate", CategoryDerived, "video_views_p75 / impressions", "video_views_p75", "impressions"),
	ratio("play_rate", CategoryDerived, "video_plays / impressions", "video_plays", "impressions"),
	ratio("cta_rate", CategoryDerived, "clicks / video_views_p75", "clicks", "video_views_p75"),

	moneyMetric("tx_revenue", CategoryAttribution),
	countMetric("tx_count", CategoryAttribution),
	countMetric("tx_count_total", CategoryAttribution),
	countMetric("tx_count_pending", CategoryAttribution),
	countMetric("tx_count_refunded", CategoryAttribution),
	moneyMetric("tx_product_costs", CategoryAttribution),
	countMetric("page_views", CategoryAttribution),
	countMetric("leads", CategoryAttribution),
	countMetric("initiate_checkout", CategoryAttribution),
	countMetric("tx_units", CategoryAttribution),

	ratio("roas", CategoryFinancial, "tx_revenue / spend", "tx_revenue", "spend"),
	{
		Name: "roi", Category: CategoryFinancial, Unit: UnitRatio, Formula: "(tx_revenue - spend) / spend", Sources: Sources,
		needs: []string{"tx_revenue", "spend"},
		sql:   "if(spend = 0, NULL, toFloat64(tx_revenue - spend) / toFloat64(spend))",
		value: func(s sums) any { return fraction(s.money[revenue].Sub(s.money[spend]), s.money[spend]) },
	},
	additiveMoney(&Metric{
		Name: "profit", Category: CategoryFinancial, Unit: UnitMoney, Formula: "tx_revenue - spend - tx_product_costs", Sources: Sources,
		needs: []string{"tx_revenue", "spend", "tx_product_costs"},
		sql:   moneySQL("(tx_revenue - spend - tx_product_costs)"),
	}, func(s sums) decimal.Decimal { return s.money[revenue].Sub(s.money[spend]).Sub(s.money[productCosts]) }),
	moneyPer("aov", CategoryFinancial, "tx_revenue / tx_count", "tx_revenue", "tx_count", 1),
	moneyPer("cpa", CategoryFinancial, "spend / tx_count", "spend", "tx_count", 1),
	moneyPer("cpl", CategoryFinancial, "spend / leads", "spend", "leads", 1),
}

var metricsByName = func() map[string]*Metric {
	m := map[string]*Metric{}
	for _, x := range metricList {
		m[x.Name] = x
		var unknown []string
		for _, n := range x.needs {
			if ms := measureNamed(n); ms.money {
				x.moneyNeeds = append(x.moneyNeeds, ms.index)
				unknown = append(unknown, fxNullColumn(n)+" = 1")
			}
		}
		if len(unknown) > 0 { // null where a money measure it needs is (currency.go, fxNull)
			x.sql = "if(" + strings.Join(unknown, " OR ") + ", NULL, " + x.sql + ")"
		}
	}
	return m
}()

// reachOnly reports whether the metric exists only for alpha_ads (null for other sources).
func (m *Metric) reachOnly() bool { return len(m.Sources) == 1 && m.Sources[0] == reachSource }

// adNetwork reports whether the metric needs what ad networks report (spend, impressions, ...):
// the business family does not hold it.
func (m *Metric) adNetwork() bool { return m.needsAny(func(x measure) bool { return x.ad }) }

// event reports whether the metric needs what tracking events count: order lines do not.
func (m *Metric) event() bool { return m.needsAny(func(x measure) bool { return x.event }) }

// businessOnly reports whether the metric needs a measure that only the business family holds.
func (m *Metric) businessOnly() bool { return m.needsAny(func(x measure) bool { return x.business }) }

func (m *Metric) needsAny(is func(measure) bool) bool {
	for _, n := range m.needs {
		if is(measureNamed(n)) {
			return true
		}
	}
	return false
}
