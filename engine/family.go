package engine

import (
	"fmt"
	"strings"

	"mtk/facts"
)

// family is a set of fact tables at the three resolutions: the ad facts (facts_*: ad-network
// metrics and the events and orders attribution linked to an ad entity) or the business facts
// (business_*: every event and order, keyed by traffic source, product, payment and customer
// type; schema/clickhouse/0008_business_facts.sql), whose rollups come in two forms: keyed by
// every dimension, or per dimension (business_dim_*, 0009), far smaller where UTM values are
// many, for a query about one dimension (plan.dimension).
type family int

const (
	familyAd family = iota
	familyBusiness
	familyBusinessDim
)

// familyTables are each family's tables by resolution, from the families' descriptors.
var familyTables = [...][3]string{
	familyAd:          resolutions(facts.FactsFamily.At),
	familyBusiness:    resolutions(facts.BusinessFamily.At),
	familyBusinessDim: resolutions(facts.BusinessFamily.PerDimensionAt),
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

// oneDimension is the dimension a business query is about when it is about at most one: every
// dimension it groups or filters by is that one (totalsDimension when none), with no level, no
// source, connection or entity filter and not only the attributed rows (the per-dimension
// rollups hold none of those keys). It is nil otherwise.
func (p *plan) oneDimension() *Dimension {
	if p.attributed || p.level != "" || p.source != "" || len(p.connectionIDs) > 0 || len(p.dims) > 1 {
		return nil
	}
	d := dimensionsByName[totalsDimension]
	if len(p.dims) == 1 {
		d = p.dims[0]
	}
	for i, f := range p.dimFilters {
		x := dimensionsByName[f.Member]
		switch {
		case !x.business:
			return nil
		case len(p.dims) == 0 && i == 0:
			d = x
		case x != d:
			return nil
		}
	}
	return d
}

// onDimensionRollup reports whether the plan reads table t in its per-dimension form: the
// dimension's value is then the column value, and rows of other dimensions are left out.
func (p *plan) onDimensionRollup(t table) bool { return p.family == familyBusinessDim && t != tableRaw }

// dimColumn is the column holding d's value in table t.
func (p *plan) dimColumn(d *Dimension, t table) string {
	if p.onDimensionRollup(t) {
		return "value"
	}
	return d.column
}
