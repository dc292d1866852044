package orders

import (
	"math/big"
	"slices"
	"testing"
	"time"

	"mtk/facts"
	"mtk/ingest/traffic"
	"mtk/platform"
)

func TestSplitSumsExactly(t *testing.T) {
	w := func(xs ...int64) []*big.Int {
		out := make([]*big.Int, len(xs))
		for i, x := range xs {
			out[i] = big.NewInt(x)
		}
		return out
	}
	huge, _ := new(big.Int).SetString("1000000000000000000000", 10) // 10^9 units of 10^12 cents
	for _, c := range []struct {
		amount  int64
		weights []*big.Int
		want    []int64
	}{
		{10_000_000, w(1, 1, 1), []int64{3_333_334, 3_333_333, 3_333_333}},
		{100, w(1, 2, 3, 0), []int64{17, 33, 50, 0}},
		{5, w(1, 1, 1, 1, 1, 1, 1), []int64{1, 1, 1, 1, 1, 0, 0}},
		{0, w(3, 4), []int64{0, 0}},
		{7, w(0, 0), []int64{7, 0}},
		{10_000_000_000_000_000, []*big.Int{huge, big.NewInt(1), huge}, []int64{5_000_000_000_000_000, 0, 5_000_000_000_000_000}},
	} {
		got := split(c.amount, c.weights)
		if !slices.Equal(got, c.want) {
			t.Errorf("split(%d, %v) = %v, want %v", c.amount, c.weights, got, c.want)
		}
	}
}

// An approved order with a commission in another currency: the order row, a net row in the
// commission's currency, and per product an item row and a net row, each family summing to the
// order; repeated product lines make one product.
func TestBizRowsOfAnOrder(t *testing.T) {
	price := func(c int64) *int64 { return &c }
	commission := int64(333)
	st := stored{order: order{Transaction: Transaction{ID: "o", Status: StatusApproved, CommissionValue: &commission,
		CommissionCurrency: "usd", PaymentMethod: "pix", Items: []Item{
			{ID: "a", Name: "A", Quantity: 2, UnitPrice: price(100)},
			{ID: "b", Quantity: 1, UnitPrice: price(100)},
			{ID: "a", Name: "A2", Quantity: 1, UnitPrice: price(100)},
		}}, value: 1000, productCost: 10, created: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), currency: "BRL"},
		customerType: "new", touch: traffic.Touch{Device: "mobile"}}
	rows := st.bizRows(platform.Project{ID: "prj", Timezone: "UTC"})
	sums := map[string]facts.Values{}
	for _, r := range rows {
		if r.PaymentMethod != "pix" || r.CustomerType != "new" || r.Device != "mobile" {
			t.Fatalf("keys %+v", r.BizKeys)
		}
		k := r.Kind + " " + r.Currency
		v := sums[k]
		for i := range v {
			v[i] += r.Values[i]
		}
		sums[k] = v
	}
	order := sums["order BRL"]
	if order[facts.TxRevenue] != 10_000_000 || order[facts.TxRevenueNet] != 0 || order[facts.TxUnits] != 4 ||
		order[facts.TxProductCosts] != 100_000 || order[facts.TxCount] != 1 {
		t.Fatalf("order row %v", order)
	}
	item := sums["item BRL"]
	item[facts.TxCount], item[facts.TxCountTotal] = 1, 1 // two products count an order each
	if item != order || sums["item USD"] != sums["order USD"] || sums["order USD"][facts.TxRevenueNet] != 3_330_000 {
		t.Fatalf("items %v, usd %v / %v, order %v", item, sums["item USD"], sums["order USD"], order)
	}
	var products []string
	for _, r := range rows {
		if r.Kind == facts.BizItem && r.Currency == "BRL" {
			products = append(products, r.ProductID+"/"+r.ProductName)
		}
	}
	if !slices.Equal(products, []string{"a/A", "b/"}) {
		t.Fatalf("products %v", products)
	}
	// A failed order writes nothing; one without items writes an empty product.
	st.Status = StatusFailed
	if rows := st.bizRows(platform.Project{ID: "prj", Timezone: "UTC"}); len(rows) != 0 {
		t.Fatalf("failed: %v", rows)
	}
	st.Status, st.Items, st.CommissionValue = StatusPending, nil, nil
	rows = st.bizRows(platform.Project{ID: "prj", Timezone: "UTC"})
	if len(rows) != 2 || rows[1].Kind != facts.BizItem || rows[1].ProductID != "" ||
		rows[1].Values != (facts.Values{facts.TxCountTotal: 1, facts.TxCountPending: 1}) {
		t.Fatalf("pending without items: %+v", rows)
	}
}

// A status update without items, payment method or product cost keeps the stored ones, so that
// its business rows keep their products; one that sends them replaces them.
func TestKeepingItemsAndPayment(t *testing.T) {
	price := int64(100)
	prev := stored{order: order{Transaction: Transaction{PaymentMethod: "boleto",
		Items: []Item{{ID: "a", Quantity: 1, UnitPrice: &price}}}, productCost: 40, itemsJ: []byte(`[{"id":"a"}]`)}}
	got := stored{order: order{Transaction: Transaction{Status: StatusApproved}, itemsJ: []byte("[]")}}.keeping(prev)
	if got.PaymentMethod != "boleto" || len(got.Items) != 1 || got.productCost != 40 || string(got.itemsJ) != `[{"id":"a"}]` {
		t.Fatalf("kept %+v", got)
	}
	cost := int64(7)
	got = stored{order: order{Transaction: Transaction{PaymentMethod: "pix", Items: []Item{}, ProductCost: &cost},
		productCost: 7}}.keeping(prev)
	if got.PaymentMethod != "pix" || len(got.Items) != 0 || got.productCost != 7 {
		t.Fatalf("replaced %+v", got)
	}
}
