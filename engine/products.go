package engine

// Order counts by product count the orders that hold the product, so an order of several
// products counts once under each: the products' counts then sum to more than the orders, and
// the answer says so when an order of the range does (CONTRACT, "traffic sources, products").

// overlapWarning is the answer's warning when an order of the range has several products.
const overlapWarning = "an order in this range has several products: order counts by product (tx_count and the like) can sum to more than the orders"

// orderCounts are the measures that count orders.
var orderCounts = []string{"tx_count", "tx_count_total", "tx_count_pending", "tx_count_refunded"}

// countsOrders reports whether the plan reads order lines and counts orders.
func (p *plan) countsOrders() bool {
	if !p.items {
		return false
	}
	for _, m := range orderCounts {
		if p.measures[m] {
			return true
		}
	}
	return false
}

// overlapStatement is 1 when the order lines of the range count more orders than the orders
// themselves (under the query's filters other than by product), which only an order of several
// products makes happen: each line of an order that is not failed counts it once in
// tx_count_total, the order row once.
func (p *plan) overlapStatement() Statement {
	where := []fragment{expr("project_id = ?", p.projectID), expr("kind IN ('order', 'item')"),
		p.table.timeFilter(p.start, p.end, p.loc)}
	where = append(where, p.rollupFilter(p.table)...)
	q := *p
	q.dimFilters = nil
	for _, f := range p.dimFilters {
		if !dimensionsByName[f.Member].product {
			q.dimFilters = append(q.dimFilters, f)
		}
	}
	where = append(where, q.scopeFilters(p.table)...)
	return expr("SELECT toUInt64(sumIf(tx_count_total, kind = 'item') > sumIf(tx_count_total, kind = 'order')) FROM "+
		p.tableName(p.table)+" WHERE ?", join(" AND ", where...)).statement()
}
