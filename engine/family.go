package engine

import (
	"fmt"
	"strings"
)

// family is a set of fact tables with the same keys at the three resolutions: the ad facts
// (facts_*: ad-network metrics and the events and orders attribution linked to an ad entity) or
// the business facts (business_*: every event and order, keyed by traffic source, product,
// payment and customer type; schema/clickhouse/0008_business_facts.sql).
type family int

const (
	familyAd family = iota
	familyBusiness
)

var familyTables = [...][3]string{
	familyAd:       {"facts_raw", "facts_hourly", "facts_daily"},
	familyBusiness: {"business_raw", "business_hourly", "business_daily"},
}

// tableName is the family's table at resolution t.
func (f family) tableName(t table) string { return familyTables[f][t] }

// rawTable reports whether name is a family's minute table (statements on it keep the server's
// max_threads).
func rawTable(name string) bool {
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

// businessReason names what makes a query read the business family, as a detail line names a
// member ("dimension \"utm_source\"", "metadata.revenue", "metric \"tx_units\""), or "" when
// nothing does: a traffic or order dimension grouped or filtered on, a revenue basis, or a metric
// only the business family holds.
func (in QueryInput) businessReason() string {
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
	if in.revenue() != "" {
		return "metadata.revenue"
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
// metric built on one) beside a traffic or order dimension, and event metrics beside a product
// dimension (items are order lines). Each detail line names the pair.
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
