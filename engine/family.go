package engine

import (
	"fmt"
	"slices"
	"strings"

	"mtk/facts"
)

// family is a set of fact tables at the three resolutions: the ad facts (facts_*: ad-network
// metrics and the events and orders attribution linked to an ad entity) or the business facts
// (business_*: every event and order, keyed by traffic source, product, payment and customer
// type; schema/clickhouse/0008_business_facts.sql), whose rollups come in four forms: keyed by
// every dimension and the ad entity; per dimension (business_dim_*, 0009), far smaller where
// UTM values are many, for a query about one dimension (plan.dimension); per pair of paired
// dimensions (business_pair_daily, 0017) for a query about two (plan.pair); per dimension and ad
// entity (business_dim_entity_daily, 0017) for one dimension by a level, source or connection.
// A form without a table at a resolution reads the wide one there (raw; the hour for the last
// two: plan.form).
type family int

const (
	familyAd family = iota
	familyBusiness
	familyBusinessDim
	familyBusinessPair
	familyBusinessDimEntity
)

// familyTables are each family's tables by resolution, from the families' descriptors.
var familyTables = [...][3]string{
	familyAd:                resolutions(facts.FactsFamily.At),
	familyBusiness:          resolutions(facts.BusinessFamily.At),
	familyBusinessDim:       businessForm(facts.FormPerDimension),
	familyBusinessPair:      businessForm(facts.FormPairs),
	familyBusinessDimEntity: businessForm(facts.FormPerDimensionEntity),
}

// businessForm are the business family's rollups of form f by resolution, business_raw first.
func businessForm(f facts.Form) [3]string {
	return resolutions(func(r facts.Resolution) string { return facts.BusinessFamily.FormAt(f, r) })
}

// Views an answer names (CONTRACT "Query: views"): the ad view counts what is credited to ad
// entities, the traffic view every event and order.
const (
	ViewAds     = "ads"
	ViewTraffic = "traffic"
)

// Views are the views an answer can name.
var Views = []string{ViewAds, ViewTraffic}

// view is the view the plan answers in: traffic when it reads the business family for a traffic
// reason (trafficReason), ads otherwise (the business family's attributed rows included).
func (p *plan) view() string {
	if p.family != familyAd && !p.attributed {
		return ViewTraffic
	}
	return ViewAds
}

// tableName is the family's table at resolution t.
func (f family) tableName(t table) string { return familyTables[f][t] }

// rawTable reports whether name is a family's or the credits' minute table (statements on it
// keep the server's max_threads).
func rawTable(name string) bool {
	if name == creditTables[tableRaw] {
		return true
	}
	for _, ts := range familyTables {
		if ts[tableRaw] == name {
			return true
		}
	}
	return false
}

// Revenue bases of metadata.revenue: gross reads tx_revenue (the order's value), net reads
// tx_revenue_net (its commission, else its value) wherever a metric is built on tx_revenue.
const (
	RevenueGross = "gross"
	RevenueNet   = "net"
)

// trafficReason names what puts a query in the traffic view, as a detail line names a member
// ("metadata.dimensions", "dimension \"utm_source\""), or "" for the ad view: metadata.dimensions
// given (even empty: the traffic total that rows by any dimension sum to) or a filter on a
// traffic or order dimension. The traffic view reads the business family, every event and order
// of the project; the ad view counts what attribution linked to an ad entity.
func (in QueryInput) trafficReason() string {
	for _, d := range in.dimensions() {
		if x := dimensionsByName[d]; x != nil && x.business {
			return fmt.Sprintf("dimension %q", d)
		}
	}
	for _, f := range in.Filters {
		if d := dimensionsByName[f.Member]; d != nil && d.business {
			return fmt.Sprintf("dimension %q", f.Member)
		}
	}
	if in.Metadata != nil && in.Metadata.Dimensions != nil {
		return "metadata.dimensions"
	}
	return ""
}

// attributedReason names what makes an ad-view query read the business family's attributed
// rows instead of the ad facts, or "" when nothing does: the net revenue basis or a metric only
// the business family holds (tx_units). Those rows hold the ad facts' business values, so the
// view, not these members, decides what is counted: stating the default basis or adding a field
// never changes another field's value.
func (in QueryInput) attributedReason() string {
	if in.revenue() == RevenueNet {
		return `metadata.revenue "net"`
	}
	members := append([]string{}, in.Fields...)
	for _, f := range in.Filters {
		members = append(members, f.Member)
	}
	for _, f := range members {
		if m := metricsByName[f]; m != nil && m.businessOnly() {
			return fmt.Sprintf("metric %q", f)
		}
	}
	return ""
}

// businessReason names what makes a query read the business family (trafficReason, else
// attributedReason), "" when it reads the ad facts.
func (in QueryInput) businessReason() string {
	if why := in.trafficReason(); why != "" {
		return why
	}
	return in.attributedReason()
}

// productReason names the product dimension the query groups or filters by, "" when none: it
// then reads the business family's item rows.
func (in QueryInput) productReason() string {
	for _, d := range in.dimensions() {
		if x := dimensionsByName[d]; x != nil && x.product {
			return fmt.Sprintf("dimension %q", d)
		}
	}
	for _, f := range in.Filters {
		if d := dimensionsByName[f.Member]; d != nil && d.product {
			return fmt.Sprintf("dimension %q", f.Member)
		}
	}
	return ""
}

// validateFamily refuses what the business family cannot answer: ad-network metrics (and every
// metric built on one) in a query that reads it (the business tables hold no spend), and event
// metrics beside a product dimension (items are order lines). Each detail line names the pair.
func (in QueryInput) validateFamily(p *problems) {
	why := in.businessReason()
	if why == "" {
		return
	}
	product := in.productReason()
	check := func(member string, m *Metric) {
		switch {
		case m == nil:
		case m.adNetwork():
			p.add("%s: ad-network metric %q cannot be asked with %s", member, m.Name, why)
		case product != "" && m.event():
			p.add("%s: event metric %q cannot be asked with %s (products are order lines)", member, m.Name, product)
		}
	}
	for i, f := range in.Fields {
		check(fmt.Sprintf("fields[%d]", i), metricsByName[f])
	}
	for i, f := range in.Filters {
		check(fmt.Sprintf("filters[%d]", i), metricsByName[f.Member])
	}
}

// validateMetadata checks metadata.dimensions (known business dimensions, each once) and
// metadata.revenue.
func (in QueryInput) validateMetadata(p *problems) {
	ds := in.dimensions()
	if len(ds) > len(BusinessDimensions) {
		p.add("metadata.dimensions: %d dimensions, at most %d", len(ds), len(BusinessDimensions))
		return
	}
	seen := map[string]bool{}
	for i, d := range ds {
		switch x := dimensionsByName[d]; {
		case x == nil || !x.business:
			p.add("metadata.dimensions[%d]: unknown dimension %q; want one of %s", i, d, strings.Join(BusinessDimensions, ", "))
		case seen[d]:
			p.add("metadata.dimensions[%d]: duplicate dimension %q", i, d)
		}
		seen[d] = true
	}
	if r := in.revenue(); r != "" && r != RevenueGross && r != RevenueNet {
		p.add("metadata.revenue: unknown revenue basis %q; want %s or %s", r, RevenueGross, RevenueNet)
	}
}

// totalsDimension is the dimension whose per-dimension rollup rows answer a business query
// that names none: every fact lands once under each dimension, and this one has few values.
const totalsDimension = "customer_type"

// chooseRollup picks the business rollups that answer the plan with the fewest rows, when the
// wide ones (every dimension and the ad entity in the key) need not: the per-dimension rollups
// for a query about at most one dimension (no level, source or connection: they hold no ad
// entity), the pair rollups for one about two paired dimensions (likewise), the per-dimension
// rollups by ad entity for one dimension by a level, a source or connections. Not for the
// attributed rows (the ad view), nor when a model credits orders (the credits are read with
// the wide rows' keys). The last two only once the pair backfill has finished for the project
// (pairsPending false): before, they lack its rows stored before them.
func (p *plan) chooseRollup() {
	if p.family != familyBusiness || p.attributed || p.crediting() {
		return
	}
	dims, ok := p.dimensionsAbout()
	entity := p.level != "" || p.source != "" || len(p.connectionIDs) > 0
	switch {
	case !ok, p.pairsPending && (entity || len(dims) == 2):
	case len(dims) <= 1:
		d := dimensionsByName[totalsDimension]
		if len(dims) == 1 {
			d = dims[0]
		}
		p.family, p.dimension = familyBusinessDim, d
		if entity {
			p.family = familyBusinessDimEntity
		}
	case len(dims) == 2 && !entity:
		a, b := dims[0], dims[1]
		if bizIndex(b.column) < bizIndex(a.column) {
			a, b = b, a
		}
		if slices.Contains(facts.BizPairs, [2]string{a.column, b.column}) {
			p.family, p.pair = familyBusinessPair, [2]*Dimension{a, b}
		}
	}
}

// dimensionsAbout are the distinct dimensions the plan groups or filters by, in the order it
// names them; false when a filter is on something else than a business dimension.
func (p *plan) dimensionsAbout() ([]*Dimension, bool) {
	dims := slices.Clone(p.dims)
	for _, f := range p.dimFilters {
		x := dimensionsByName[f.Member]
		if x == nil || !x.business {
			return nil, false
		}
		if !slices.Contains(dims, x) {
			dims = append(dims, x)
		}
	}
	return dims, true
}

// bizIndex is the position of a business dimension's column among facts.BizDimensions.
func bizIndex(column string) int {
	return slices.IndexFunc(facts.BizDimensions, func(d facts.BizDimension) bool { return d.Column == column })
}

// form is the form of the plan's table at resolution t (a form's family reads the wide table
// where the form has none: raw, and the hour for the daily-only forms).
func (p *plan) form(t table) facts.Form {
	if p.family == familyAd {
		return facts.FormWide
	}
	return facts.BusinessFamily.Table(p.tableName(t)).Form
}

// onDimensionRollup reports whether the plan reads table t in a per-dimension form (with or
// without the ad entity): the dimension's value is then the column value, and rows of other
// dimensions are left out.
func (p *plan) onDimensionRollup(t table) bool {
	f := p.form(t)
	return f == facts.FormPerDimension || f == facts.FormPerDimensionEntity
}

// onPairRollup reports whether the plan reads table t in its pair form: each dimension's value is
// then value_a or value_b, and rows of other pairs are left out.
func (p *plan) onPairRollup(t table) bool { return p.form(t) == facts.FormPairs }

// rollupFilter picks the rows of the plan's dimension, or pair, on a rollup of that form.
func (p *plan) rollupFilter(t table) []fragment {
	switch {
	case p.onDimensionRollup(t):
		return []fragment{expr("dimension = ?", p.dimension.Name)}
	case p.onPairRollup(t):
		return []fragment{expr("dimension_a = ? AND dimension_b = ?", p.pair[0].column, p.pair[1].column)}
	}
	return nil
}

// dimColumn is the column holding d's value in table t.
func (p *plan) dimColumn(d *Dimension, t table) string {
	switch {
	case p.onDimensionRollup(t):
		return "value"
	case p.onPairRollup(t) && d == p.pair[0]:
		return "value_a"
	case p.onPairRollup(t):
		return "value_b"
	}
	return d.column
}
