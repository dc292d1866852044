package orders

import (
	"math/big"
	"strings"

	"mtk/facts"
	"mtk/ingest/factstream"
	"mtk/platform"
)

// Business rows of a state (the business family, facts.BizSpecs), attributed or not: one 'order'
// row with the order's values, and one 'item' row per distinct product (an order without items:
// one with an empty product) holding the product's share of the order's money by line value
// (quantity × unit_price; by quantity when no line has a price), rounded by largest remainder so
// that the items sum to the order to the micro, its units (approved) and the order's counts. net
// revenue is the commission when sent in the order's currency (or without one), else the value;
// a commission in another currency is a row of its own in that currency holding only net revenue,
// for the order and for each item. A failed order writes nothing.

// product is one distinct product of an order.
type product struct {
	id, name string
	weight   *big.Int // cents × units: past int64 for the largest orders
	units    int64
}

// products are st's distinct products in the order of their first line, or one empty product.
func (st stored) products() []product {
	var out []product
	at := map[string]int{}
	for _, it := range st.Items {
		id := strings.TrimSpace(it.ID)
		i, ok := at[id]
		if !ok {
			i = len(out)
			at[id] = i
			out = append(out, product{id: id, weight: new(big.Int)})
		}
		p := &out[i]
		if p.name == "" {
			p.name = strings.TrimSpace(it.Name)
		}
		if it.UnitPrice != nil {
			p.weight.Add(p.weight, new(big.Int).Mul(big.NewInt(it.Quantity), big.NewInt(*it.UnitPrice)))
		}
		p.units += it.Quantity
	}
	if len(out) == 0 {
		return []product{{weight: big.NewInt(1)}}
	}
	total := new(big.Int)
	for _, p := range out {
		total.Add(total, p.weight)
	}
	if total.Sign() == 0 {
		for i := range out {
			out[i].weight = big.NewInt(out[i].units)
		}
	}
	return out
}

// split divides amount among weights (not all zero) in proportion, each share rounded down and
// the micros left given one by one to the largest remainders (the first on a tie), so that the
// shares sum to amount exactly.
func split(amount int64, weights []*big.Int) []int64 {
	total := new(big.Int)
	for _, w := range weights {
		total.Add(total, w)
	}
	out := make([]int64, len(weights))
	if total.Sign() == 0 {
		out[0] = amount
		return out
	}
	rems := make([]*big.Int, len(weights))
	left := amount
	for i, w := range weights {
		q, r := new(big.Int).QuoRem(new(big.Int).Mul(big.NewInt(amount), w), total, new(big.Int))
		out[i], rems[i] = q.Int64(), r
		left -= out[i]
	}
	for ; left > 0; left-- {
		best := 0
		for i := range rems {
			if rems[i].Cmp(rems[best]) > 0 {
				best = i
			}
		}
		out[best]++
		rems[best] = big.NewInt(-1)
	}
	return out
}

// bizRows are the business rows a state adds (see above), none for a failed order.
func (st stored) bizRows(p platform.Project) []factstream.BizRow {
	v, counts := facts.OrderValues(st.Status, st.value, st.productCost)
	if !counts {
		return nil
	}
	keys := facts.BizKeys{Kind: facts.BizOrder, UTMSource: st.UTM.Source, UTMMedium: st.UTM.Medium,
		UTMCampaign: st.UTM.Campaign, UTMContent: st.UTM.Content, UTMTerm: st.UTM.Term, ReferrerHost: st.touch.ReferrerHost,
		LandingPath: st.touch.LandingPath, Device: st.touch.Device, PaymentMethod: st.PaymentMethod,
		CustomerType: st.customerType, Currency: st.currency}
	if st.attributed {
		keys.AdEntity = st.attr
	}
	var otherNet int64 // net revenue in the commission's own currency
	commission := strings.ToUpper(strings.TrimSpace(st.CommissionCurrency))
	if st.Status == StatusApproved {
		v[facts.TxRevenueNet] = v[facts.TxRevenue]
		if st.CommissionValue != nil {
			net := *st.CommissionValue * facts.MicrosPerMinor
			if commission == "" || commission == st.currency {
				v[facts.TxRevenueNet] = net
			} else {
				v[facts.TxRevenueNet], otherNet = 0, net
			}
		}
	}
	prods := st.products()
	if st.Status == StatusApproved {
		for _, pr := range prods {
			v[facts.TxUnits] += pr.units
		}
	}
	row := func(k facts.BizKeys, vals facts.Values) factstream.BizRow {
		return factstream.BizRow{TimeZone: p.Timezone, BizFact: facts.BizFact{ProjectID: p.ID, Time: st.created, BizKeys: k, Values: vals}}
	}
	rows := []factstream.BizRow{row(keys, v)}
	other := keys
	other.Currency = commission
	if otherNet != 0 {
		rows = append(rows, row(other, facts.Values{facts.TxRevenueNet: otherNet}))
	}
	weights := make([]*big.Int, len(prods))
	for i, pr := range prods {
		weights[i] = pr.weight
	}
	shares := map[facts.Measure][]int64{}
	for _, m := range facts.BusinessFamily.Measures {
		if facts.Specs[m].Money { // an item's share of the order's money
			shares[m] = split(v[m], weights)
		}
	}
	otherShares := split(otherNet, weights)
	for i, pr := range prods {
		k := keys
		k.Kind, k.ProductID, k.ProductName = facts.BizItem, pr.id, pr.name
		iv := v
		for m, s := range shares {
			iv[m] = s[i]
		}
		iv[facts.TxUnits] = 0
		if st.Status == StatusApproved {
			iv[facts.TxUnits] = pr.units
		}
		rows = append(rows, row(k, iv))
		if otherNet != 0 {
			ko := k
			ko.Currency = commission
			rows = append(rows, row(ko, facts.Values{facts.TxRevenueNet: otherShares[i]}))
		}
	}
	return rows
}

// bizChange is the change of the business rows from prev (when found and its rows were written)
// to st (when its rows are written): prev's rows negated and st's, none when they are the same.
func bizChange(p platform.Project, prev stored, found bool, st stored) []factstream.BizRow {
	var before []factstream.BizRow
	if found && prev.business {
		before = prev.bizRows(p)
	}
	var after []factstream.BizRow
	if st.business {
		after = st.bizRows(p)
	}
	if equalRows(before, after) {
		return nil
	}
	rows := make([]factstream.BizRow, 0, len(before)+len(after))
	for _, r := range before {
		rows = append(rows, r.Negate())
	}
	return append(rows, after...)
}

func equalRows(a, b []factstream.BizRow) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].TimeZone != b[i].TimeZone || a[i].ProjectID != b[i].ProjectID || !a[i].Time.Equal(b[i].Time) ||
			a[i].BizKeys != b[i].BizKeys || a[i].Values != b[i].Values {
			return false
		}
	}
	return true
}
