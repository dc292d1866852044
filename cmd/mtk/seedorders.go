package main

import (
	"math"
	"math/rand"
	"slices"
	"sort"
	"time"

	"mtk/ingest/orders"
)

// product is one of the demo shop's products: its price and unit cost in BRL cents, and how
// often a visitor from an unpaid source picks it (the cheap ones sell most).
type product struct {
	id, name    string
	price, cost int64
	popularity  int
}

var demoProducts = []product{
	{"CAM-001", "Camiseta Básica Algodão", 7990, 2390, 30},
	{"CAL-002", "Calça Jeans Slim", 18990, 7200, 12},
	{"TEN-003", "Tênis Casual Couro", 29990, 13500, 10},
	{"BON-004", "Boné Aba Curva", 5990, 1500, 20},
	{"JAQ-005", "Jaqueta Corta-Vento", 24990, 9900, 8},
	{"MEI-006", "Kit 3 Pares de Meias", 3990, 1100, 20},
}

// priceFactor converts the BRL price list into the other currencies the demo's ad accounts
// sell in, as a shop shows local prices.
var priceFactor = map[string]float64{"USD": 0.2, "EUR": 0.18}

func inCurrency(brl int64, currency string) int64 {
	if f, ok := priceFactor[currency]; ok {
		return int64(math.Round(float64(brl) * f))
	}
	return brl
}

type line struct {
	p   product
	qty int64
}

// basket is an order's lines and their total in BRL cents.
type basket struct {
	lines []line
	total int64
}

// baskets are every order of one to three products, one or two of each, by total.
var baskets = func() []basket {
	var out []basket
	var add func(from int, lines []line)
	add = func(from int, lines []line) {
		if len(lines) > 0 {
			b := basket{lines: lines}
			for _, l := range lines {
				b.total += l.p.price * l.qty
			}
			out = append(out, b)
		}
		if len(lines) == 3 {
			return
		}
		for i := from; i < len(demoProducts); i++ {
			for qty := int64(1); qty <= 2; qty++ {
				add(i+1, append(lines[:len(lines):len(lines)], line{demoProducts[i], qty}))
			}
		}
	}
	add(0, nil)
	sort.Slice(out, func(i, j int) bool { return out[i].total < out[j].total })
	return out
}()

// basketNear draws a basket worth about target cents of currency (within 20 %, else the
// closest), so that orders from an ad return what the ad's made-up ROAS says; of those, one of
// the drawn number of lines when there is one, as most orders hold one product.
func basketNear(r *rand.Rand, target int64, currency string) basket {
	brl := int64(float64(target) / float64(inCurrency(1_000_000, currency)) * 1_000_000)
	lo := sort.Search(len(baskets), func(i int) bool { return baskets[i].total*10 >= brl*8 })
	hi := sort.Search(len(baskets), func(i int) bool { return baskets[i].total*10 > brl*12 })
	if lo == hi {
		if lo == len(baskets) || lo > 0 && brl-baskets[lo-1].total < baskets[lo].total-brl {
			lo--
		}
		return baskets[lo]
	}
	near := baskets[lo:hi]
	if n := lineCount(r); slices.ContainsFunc(near, func(b basket) bool { return len(b.lines) == n }) {
		near = slices.DeleteFunc(slices.Clone(near), func(b basket) bool { return len(b.lines) != n })
	}
	return near[r.Intn(len(near))]
}

// lineCount draws how many products an order holds.
func lineCount(r *rand.Rand) int {
	switch k := r.Intn(100); {
	case k >= 92:
		return 3
	case k >= 70:
		return 2
	}
	return 1
}

// randomBasket draws what a visitor from an unpaid source buys: mostly one product, one of it,
// the products by popularity.
func randomBasket(r *rand.Rand) basket {
	var b basket
	left := slices.Clone(demoProducts)
	for range lineCount(r) {
		sum := 0
		for _, p := range left {
			sum += p.popularity
		}
		k, i := r.Intn(sum), 0
		for k -= left[0].popularity; k >= 0; k -= left[i].popularity {
			i++
		}
		l := line{left[i], 1}
		if r.Intn(100) < 15 {
			l.qty = 2
		}
		b.lines = append(b.lines, l)
		b.total += l.p.price * l.qty
		left = slices.Delete(left, i, i+1)
	}
	return b
}

// paymentMethod is a way the shop's customers pay: its share of orders and of those the share
// never paid (a card declined, a pix or boleto left to expire), in percent, and the checkout's
// fee for it (basis points of the value plus a fixed amount in BRL cents), which the webhooks
// report as the shop's commission: what it receives (metadata.revenue "net").
type paymentMethod struct {
	name              string
	weight, unpaid    int
	feeBps, feeFixBRL int64
}

var paymentMethods = []paymentMethod{
	{"credit_card", 48, 8, 499, 100}, {"pix", 30, 20, 99, 0}, {"boleto", 12, 40, 0, 349},
	{"debit_card", 5, 8, 299, 0}, {"paypal", 5, 5, 540, 60},
}

// received is what the shop keeps of value (in currency's minor units) after m's fee.
func (m paymentMethod) received(value int64, currency string) int64 {
	return max(value-value*m.feeBps/10_000-inCurrency(m.feeFixBRL, currency), 0)
}

func drawPayment(r *rand.Rand) paymentMethod {
	n := r.Intn(100)
	for _, m := range paymentMethods {
		if n -= m.weight; n < 0 {
			return m
		}
	}
	return paymentMethods[0]
}

// paidShare is the share of orders that get paid.
func paidShare() float64 {
	paid := 0
	for _, m := range paymentMethods {
		paid += m.weight * (100 - m.unpaid)
	}
	return float64(paid) / 10_000
}

// step is one status an order reaches, after its creation.
type step struct {
	status string
	after  time.Duration
}

// lifecycle draws the statuses of an order paid by m, as checkouts report them: a card or
// PayPal payment is approved (or declined) at once; a pix or boleto waits pending until it is
// paid, or expires (failed) when its QR code (30 minutes) or due date (4 days) passes. Some
// approved orders are refunded days later, fewer charged back weeks later.
func lifecycle(r *rand.Rand, m paymentMethod) []step {
	minutes := func(lo, hi int) time.Duration { return time.Duration(lo+r.Intn(hi-lo+1)) * time.Minute }
	unpaid := r.Intn(100) < m.unpaid
	var steps []step
	switch m.name {
	case "pix":
		steps = []step{{orders.StatusPending, 0}, {orders.StatusApproved, minutes(2, 25)}}
		if unpaid {
			steps[1] = step{orders.StatusFailed, 30 * time.Minute}
		}
	case "boleto":
		steps = []step{{orders.StatusPending, 0}, {orders.StatusApproved, minutes(20*60, 4*24*60-60)}}
		if unpaid {
			steps[1] = step{orders.StatusFailed, 4 * 24 * time.Hour}
		}
	default:
		steps = []step{{orders.StatusApproved, minutes(1, 2)}}
		if unpaid {
			steps[0].status = orders.StatusFailed
		}
	}
	if last := steps[len(steps)-1]; last.status == orders.StatusApproved {
		switch n := r.Intn(100); {
		case n < 5:
			steps = append(steps, step{orders.StatusRefunded, last.after + minutes(2*24*60, 10*24*60)})
		case n < 6:
			steps = append(steps, step{orders.StatusChargeback, last.after + minutes(15*24*60, 40*24*60)})
		}
	}
	return steps
}

// demoOrder is one order of the demo shop.
type demoOrder struct {
	id       string
	at       time.Time
	currency string
	customer map[string]any
	utm      map[string]string // nil: the checkout passes none
	basket   basket
	payment  paymentMethod
}

// webhooks are the bodies a checkout sends for o, oldest first, those due by now: each with the
// whole transaction (items, payment method), the first also with the customer and the visit's
// UTM; status updates carry neither, so a refund lands where the sale did.
func (o demoOrder) webhooks(r *rand.Rand, now time.Time) []map[string]any {
	var items []map[string]any
	var value int64
	for _, l := range o.basket.lines {
		price := inCurrency(l.p.price, o.currency)
		items = append(items, map[string]any{"id": l.p.id, "name": l.p.name, "quantity": l.qty,
			"unit_price": price, "cost": inCurrency(l.p.cost, o.currency) * l.qty})
		value += price * l.qty
	}
	var out []map[string]any
	for i, st := range lifecycle(r, o.payment) {
		updated := o.at.Add(st.after)
		if updated.After(now) {
			break
		}
		tx := map[string]any{"id": o.id, "status": st.status, "value": value, "currency": o.currency,
			"created_at": o.at.Format(time.RFC3339), "updated_at": updated.Format(time.RFC3339),
			"items": items, "payment_method": o.payment.name,
			"commission_value": o.payment.received(value, o.currency), "commission_currency": o.currency}
		if i == 0 {
			tx["customer"] = o.customer
			if o.utm != nil {
				tx["utm"] = o.utm
			}
		}
		out = append(out, map[string]any{"transaction": tx})
	}
	return out
}
