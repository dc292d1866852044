package main

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSeedDemoOrdersPayLikeCheckouts: the demo's order webhooks name a payment method on every
// call; cards and PayPal are approved or declined at once, pix and boletos wait pending and are
// later paid or expire, in the same transaction; only the first call carries the customer and
// UTM; the lines are worth the order's value, and the commission is the value less the fee. With a late "now", recent boletos are still pending.
func TestSeedDemoOrdersPayLikeCheckouts(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	created := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	paths := map[string]map[string]bool{} // method → status sequences seen
	for i := range 3000 {
		o := demoOrder{id: fmt.Sprint("o", i), at: created, currency: "BRL", customer: map[string]any{"email": "a@b.example"},
			basket: randomBasket(r), payment: drawPayment(r)}
		if i%2 == 0 {
			o.utm = map[string]string{"utm_source": "email"}
		}
		var seq []string
		last := ""
		for j, body := range o.webhooks(r, created.AddDate(0, 3, 0)) {
			tx := body["transaction"].(map[string]any)
			_, hasCustomer := tx["customer"]
			_, hasUTM := tx["utm"]
			if tx["id"] != o.id || tx["payment_method"] != o.payment.name || hasCustomer != (j == 0) || hasUTM != (j == 0 && o.utm != nil) {
				t.Fatalf("webhook %d of %s: %v", j, o.payment.name, tx)
			}
			var sum int64
			for _, it := range tx["items"].([]map[string]any) {
				if it["cost"].(int64) <= 0 {
					t.Fatalf("a line without cost: %v", it)
				}
				sum += it["unit_price"].(int64) * it["quantity"].(int64)
			}
			if n := len(tx["items"].([]map[string]any)); n < 1 || n > 3 || sum != tx["value"] {
				t.Fatalf("%d lines worth %d for a value of %v", n, sum, tx["value"])
			}
			if c := tx["commission_value"].(int64); c >= sum || c < sum*85/100 || tx["commission_currency"] != o.currency {
				t.Fatalf("%s: commission %d %v of %d: want the value less the checkout's fee", o.payment.name, c, tx["commission_currency"], sum)
			}
			if updated := tx["updated_at"].(string); updated <= last {
				t.Fatalf("updated_at %s after %s", updated, last)
			} else {
				last = updated
			}
			seq = append(seq, tx["status"].(string))
		}
		if paths[o.payment.name] == nil {
			paths[o.payment.name] = map[string]bool{}
		}
		paths[o.payment.name][strings.Join(seq, ">")] = true
	}
	at := []string{"approved", "approved>chargeback", "approved>refunded", "failed"}
	later := []string{"pending>approved", "pending>approved>chargeback", "pending>approved>refunded", "pending>failed"}
	for _, c := range []struct {
		method        string
		allowed, seen []string // seen: the lifecycles common enough to come up in 3000 orders
	}{
		{"credit_card", at, at},
		{"debit_card", at, []string{"approved", "approved>refunded", "failed"}},
		{"paypal", at, []string{"approved", "approved>refunded", "failed"}},
		{"pix", later, later},
		{"boleto", later, []string{"pending>approved", "pending>approved>refunded", "pending>failed"}},
	} {
		for s := range paths[c.method] {
			if !slices.Contains(c.allowed, s) {
				t.Errorf("%s: lifecycle %s (all: %v)", c.method, s, paths[c.method])
			}
		}
		for _, s := range c.seen {
			if !paths[c.method][s] {
				t.Errorf("%s: lifecycle %s never drawn (all: %v)", c.method, s, paths[c.method])
			}
		}
	}

	// A boleto of an hour ago has only its pending call.
	o := demoOrder{id: "b", at: created, currency: "BRL", basket: randomBasket(r), payment: paymentMethods[slices.IndexFunc(paymentMethods,
		func(m paymentMethod) bool { return m.name == "boleto" })]}
	if calls := o.webhooks(r, created.Add(time.Hour)); len(calls) != 1 || calls[0]["transaction"].(map[string]any)["status"] != "pending" {
		t.Fatalf("a fresh boleto: %v", calls)
	}
}

// TestSeedDemoBasketsFollowTheTarget: an ad's orders are worth about what its ROAS asks, in
// its account's currency, so the demo's ad returns hold.
func TestSeedDemoBasketsFollowTheTarget(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, c := range []struct {
		currency string
		target   int64
	}{{"BRL", 9_000}, {"BRL", 25_000}, {"USD", 3_000}, {"EUR", 12_000}} {
		var sum int64
		for range 1000 {
			b := basketNear(r, c.target, c.currency)
			for _, l := range b.lines {
				sum += inCurrency(l.p.price, c.currency) * l.qty
			}
		}
		if mean := float64(sum) / 1000 / float64(c.target); mean < 0.85 || mean > 1.15 {
			t.Errorf("%s %d: baskets worth %.2f of the target", c.currency, c.target, mean)
		}
	}
}
