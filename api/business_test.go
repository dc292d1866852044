package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"mtk/facts"
)

// Real User-Agents, by the device class each must count under.
var browserUAs = []struct{ ua, device string }{
	{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", "desktop"},
	{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Safari/605.1.15", "desktop"},
	{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1", "mobile"},
	{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.6367.82 Mobile Safari/537.36", "mobile"},
	{"Mozilla/5.0 (iPad; CPU OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1", "tablet"},
	{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "bot"},
	{"curl/8.5.0", "bot"},
}

// browserEvent is one event as a browser's tag sends it, with what it must count.
type browserEvent struct {
	id, name, email    string
	ua                 int // index in browserUAs
	page, referrer     string
	minutesAgo         int64
	utmSource, host    string // expected utm_source and referrer_host
	landing            string // expected landing_path
	pageViews, leads   int64
	initiateCheckout   int64
	sentTwice          bool
	attributedExpected bool
}

// bizTotals sums business_raw per kind for a project.
func (e *env) bizTotals(t *testing.T, project, where string) map[string]facts.Values {
	t.Helper()
	cols := ""
	for _, m := range facts.BusinessFamily.Measures {
		cols += ", toInt64(sum(" + facts.Specs[m].Column + "))"
	}
	rows, err := e.ch.Query(context.Background(), "SELECT kind"+cols+" FROM business_raw WHERE project_id = ? "+where+" GROUP BY kind", project)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]facts.Values{}
	for rows.Next() {
		var kind string
		var v facts.Values
		if err := rows.Scan(append([]any{&kind}, v.Dest(facts.BusinessFamily.Measures)...)...); err != nil {
			t.Fatal(err)
		}
		out[kind] = v
	}
	return out
}

// Events from browsers (real User-Agents and page URLs, an event id sent twice) and orders as a
// checkout sends them (items, a status change without UTM, a refund, a customer buying twice, a
// commission in another currency) land in business_raw exactly once: its sums per kind, device,
// product, payment method and customer type equal an independent computation from the inputs.
func TestBusinessFactsFromProductionTraffic(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	evs := e.productionTraffic(a)
	var touches string
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT string_agg(event_id, ',' ORDER BY event_id) FROM lead_touches").
		Scan(&touches); err != nil || touches != "ic-1,ld-1,ld-2,pv-6" {
		t.Fatalf("the leads' events' touches: %q %v", touches, err)
	}

	// The independent computation, from the inputs above.
	var wantEv facts.Values
	devices := map[string]int64{}
	for _, ev := range evs {
		wantEv[facts.PageViews] += ev.pageViews
		wantEv[facts.Leads] += ev.leads
		wantEv[facts.InitiateCheckout] += ev.initiateCheckout
		if ev.pageViews+ev.leads+ev.initiateCheckout > 0 {
			devices[browserUAs[ev.ua].device]++
		}
	}
	const m = facts.MicrosPerMinor
	// Final states: o-1 approved 10.00 (net = value), o-2 approved 59.90 (net 9.00 USD), o-3
	// refunded, o-4 failed (nothing).
	var wantOrder facts.Values
	wantOrder[facts.TxRevenue] = (1000 + 5990) * m
	wantOrder[facts.TxRevenueNet] = 1000 * m // o-2's net is in USD
	wantOrder[facts.TxCount] = 2
	wantOrder[facts.TxCountTotal] = 3
	wantOrder[facts.TxCountRefunded] = 1
	wantOrder[facts.TxProductCosts] = 400 * m // o-1's item costs; o-2 has none
	wantOrder[facts.TxUnits] = 3 + 3
	got := e.bizTotals(t, a.project.ID, "AND currency = 'BRL'")
	if got[facts.BizEvent] != wantEv {
		t.Errorf("events: %v, want %v", got[facts.BizEvent], wantEv)
	}
	if got[facts.BizOrder] != wantOrder {
		t.Errorf("orders: %v, want %v", got[facts.BizOrder], wantOrder)
	}
	// Items: money sums to the orders' to the micro; counts per product row (o-1 has 3 products).
	wantItems := wantOrder
	wantItems[facts.TxCount] = 3 + 1
	wantItems[facts.TxCountTotal] = 3 + 1 + 1
	if got[facts.BizItem] != wantItems {
		t.Errorf("items: %v, want %v", got[facts.BizItem], wantItems)
	}
	usd := e.bizTotals(t, a.project.ID, "AND currency = 'USD'")
	if usd[facts.BizOrder] != (facts.Values{facts.TxRevenueNet: 900 * m}) || usd[facts.BizItem] != usd[facts.BizOrder] {
		t.Errorf("the USD commission: %v", usd)
	}

	type key2 struct{ a, b string }
	sums := func(sql string) map[key2]int64 {
		t.Helper()
		rows, err := e.ch.Query(context.Background(), sql, a.project.ID)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[key2]int64{}
		for rows.Next() {
			var k key2
			var n int64
			if err := rows.Scan(&k.a, &k.b, &n); err != nil {
				t.Fatal(err)
			}
			if n != 0 {
				out[k] = n
			}
		}
		return out
	}
	check := func(name string, got, want map[key2]int64) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	wantDevices := map[key2]int64{}
	for d, n := range devices {
		wantDevices[key2{"event", d}] = n
	}
	check("events by device", sums(`SELECT kind, device, toInt64(sum(page_views + leads + initiate_checkout)) FROM business_raw
		WHERE project_id = ? AND kind = 'event' GROUP BY kind, device`), wantDevices)
	wantSources := map[key2]int64{}
	for _, ev := range evs {
		if n := ev.pageViews + ev.leads + ev.initiateCheckout; n > 0 {
			wantSources[key2{ev.utmSource, ev.host + " " + ev.landing}] += n
		}
	}
	check("events by utm_source, referrer host and landing path", sums(`SELECT utm_source, concat(referrer_host, ' ', landing_path),
		toInt64(sum(page_views + leads + initiate_checkout)) FROM business_raw WHERE project_id = ? AND kind = 'event'
		GROUP BY utm_source, referrer_host, landing_path`), wantSources)
	check("attributed events", sums(`SELECT campaign_id, ad_id, toInt64(sum(page_views)) FROM business_raw
		WHERE project_id = ? AND kind = 'event' GROUP BY campaign_id, ad_id`),
		map[key2]int64{{"900", "902"}: 1, {"", ""}: wantEv[facts.PageViews] - 1})
	// Products: o-1's 10.00 split in thirds (the extra micro to the first), o-2's 59.90 all sku-1.
	check("revenue by product", sums(`SELECT product_id, product_name, toInt64(sum(tx_revenue)) FROM business_raw
		WHERE project_id = ? AND kind = 'item' GROUP BY product_id, product_name`),
		map[key2]int64{{"sku-1", "Tênis"}: 3_333_334 + 5990*m, {"sku-2", "Meia"}: 3_333_333, {"sku-3", "Boné"}: 3_333_333})
	check("units by product", sums(`SELECT product_id, '', toInt64(sum(tx_units)) FROM business_raw
		WHERE project_id = ? AND kind = 'item' GROUP BY product_id`),
		map[key2]int64{{"sku-1", ""}: 1 + 3, {"sku-2", ""}: 1, {"sku-3", ""}: 1})
	// Payment method as sent (lower-cased), kept by the update that omits it; customer type: ana's
	// first approved order (o-1, 12:00) is new, her o-2 (12:30) returning; bia's o-3 new.
	check("orders by payment method and customer type", sums(`SELECT payment_method, customer_type, toInt64(sum(tx_count_total))
		FROM business_raw WHERE project_id = ? AND kind = 'order' GROUP BY payment_method, customer_type`),
		map[key2]int64{{"pix", "new"}: 1, {"boleto", "returning"}: 1, {"credit_card", "new"}: 1})
	// An order's touch is its lead's latest event before it: ana's checkout (ic-1) on a mobile,
	// bia's lead on an iPad; o-2 keeps its ad attribution through the update without UTM.
	check("orders by referrer and device", sums(`SELECT concat(referrer_host, ' ', landing_path), device, toInt64(sum(tx_count_total))
		FROM business_raw WHERE project_id = ? AND kind = 'order' GROUP BY referrer_host, landing_path, device`),
		map[key2]int64{{"acme.example /checkout", "mobile"}: 2, {" /promo", "tablet"}: 1})
	check("orders by ad", sums(`SELECT campaign_id, utm_source, toInt64(sum(tx_revenue)) FROM business_raw
		WHERE project_id = ? AND kind = 'order' GROUP BY campaign_id, utm_source`),
		map[key2]int64{{"900", "alpha"}: 5990 * m, {"", "whatsapp"}: 1000 * m})

	// Every row is in the rollups too.
	for _, rollup := range []string{"business_hourly", "business_daily"} {
		var raw, rolled int64
		if err := e.ch.QueryRow(context.Background(), `SELECT (SELECT toInt64(sum(tx_revenue + tx_units + page_views)) FROM business_raw WHERE project_id = ?),
			(SELECT toInt64(sum(tx_revenue + tx_units + page_views)) FROM `+rollup+` WHERE project_id = ?)`, a.project.ID, a.project.ID).
			Scan(&raw, &rolled); err != nil || raw != rolled {
			t.Errorf("%s: %d, raw %d (%v)", rollup, rolled, raw, err)
		}
	}
}

// productionTraffic sends a's events from browsers and its orders' webhooks as a checkout does
// (see TestBusinessFactsFromProductionTraffic), drains them, and returns the events.
func (e *env) productionTraffic(a trackingTenant) []browserEvent {
	t := e.t
	t.Helper()
	// The business facts' migration ran before this traffic (the test clock is in the past).
	if _, err := e.store.Pool().Exec(context.Background(), "UPDATE business_backfill SET migrated_at = $1",
		e.clock.Now().AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	now := e.clock.Now() // 15:00 UTC; the orders are created at 12:00
	evs := []browserEvent{
		{id: "pv-1", name: "PageView", ua: 0, page: "https://acme.example/?utm_source=alpha&utm_campaign=Spring+Sale%7C900&utm_medium=Broad%7C901&utm_content=Video+1%7C902",
			referrer: "https://l.facebook.com/", minutesAgo: 300, utmSource: "alpha", host: "l.facebook.com", landing: "/", pageViews: 1, attributedExpected: true},
		{id: "pv-2", name: "PageView", ua: 2, page: "https://acme.example/produto/tenis?utm_source=email&utm_medium=newsletter",
			referrer: "https://mail.google.com/mail/u/0/", minutesAgo: 290, utmSource: "email", host: "mail.google.com", landing: "/produto/tenis", pageViews: 1, sentTwice: true},
		{id: "pv-3", name: "page_view", ua: 3, page: "https://acme.example/blog/post#x", referrer: "https://www.Google.com/",
			minutesAgo: 280, host: "www.google.com", landing: "/blog/post", pageViews: 1},
		{id: "pv-4", name: "PageView", ua: 5, page: "https://acme.example/", minutesAgo: 270, landing: "/", pageViews: 1},
		{id: "pv-5", name: "PageView", ua: 6, page: "https://acme.example/health", minutesAgo: 260, landing: "/health", pageViews: 1},
		{id: "ld-1", name: "Lead", email: "ana@x.com", ua: 2, page: "https://acme.example/cadastro?utm_source=whatsapp",
			referrer: "https://wa.me/", minutesAgo: 250, utmSource: "whatsapp", host: "wa.me", landing: "/cadastro", leads: 1},
		{id: "ld-2", name: "Lead", email: "bia@x.com", ua: 4, page: "https://acme.example/promo", minutesAgo: 240, landing: "/promo", leads: 1},
		{id: "pv-6", name: "PageView", email: "bia@x.com", ua: 1, page: "https://acme.example/conta", minutesAgo: 150,
			landing: "/conta", pageViews: 1}, // after bia's order: her order's touch is ld-2's
		{id: "ic-1", name: "InitiateCheckout", email: "ana@x.com", ua: 3, page: "https://acme.example/checkout?step=1",
			referrer: "https://acme.example/produto/tenis", minutesAgo: 200, host: "acme.example", landing: "/checkout", initiateCheckout: 1},
		{id: "other-1", name: "scroll_depth", ua: 1, page: "https://acme.example/", minutesAgo: 190}, // counts nowhere
	}
	send := func(ev browserEvent) {
		t.Helper()
		body := map[string]any{"event_id": ev.id, "config": map[string]any{"name": ev.name}, "source": "website",
			"timestamp": now.Unix() - ev.minutesAgo*60, "page": map[string]any{"url": ev.page, "referrer": ev.referrer}}
		if ev.email != "" {
			body["lead"] = map[string]any{"email": ev.email}
		}
		if r := e.event(body, append(bearer(a.key), "User-Agent", browserUAs[ev.ua].ua)...); r.Status != 200 {
			t.Fatalf("event %s: %d %s", ev.id, r.Status, r.Body)
		}
	}
	for _, ev := range evs[:5] {
		send(ev)
		if ev.sentTwice {
			send(ev)
		}
	}
	e.drain() // some events in ClickHouse, some still queued: the orders read neither
	for _, ev := range evs[5:] {
		send(ev)
	}

	// Orders, in the order a checkout sends their webhooks.
	key := a.custom.WebhookKey
	at := func(m int) time.Time { return now.Add(time.Duration(m) * time.Minute) }
	items3 := []map[string]any{
		{"id": "sku-1", "name": "Tênis", "quantity": 1, "unit_price": 1000, "cost": 300},
		{"id": "sku-2", "name": "Meia", "quantity": 1, "unit_price": 1000, "cost": 100},
		{"id": "sku-3", "name": "Boné", "quantity": 1, "unit_price": 1000},
	}
	type sent struct {
		tx   map[string]any
		at   time.Time
		want int // expected status
	}
	o1 := map[string]any{"id": "o-1", "status": "approved", "value": 1000, "currency": "BRL", "payment_method": "pix",
		"created_at": "2026-03-10T12:00:00Z", "customer": map[string]any{"email": "ana@x.com"}, "items": items3}
	o2 := map[string]any{"id": "o-2", "status": "pending", "value": 5990, "currency": "BRL", "payment_method": "boleto",
		"created_at": "2026-03-10T12:30:00Z", "customer": map[string]any{"email": "ana@x.com"}, "utm": attributedUTM,
		"commission_value": 900, "commission_currency": "USD",
		"items": []map[string]any{{"id": "sku-1", "name": "Tênis", "quantity": 2, "unit_price": 2000}, {"id": "sku-1", "quantity": 1, "unit_price": 1990}}}
	o2paid := map[string]any{"id": "o-2", "status": "approved", "value": 5990, "currency": "BRL",
		"created_at": "2026-03-10T12:30:00Z", "commission_value": 900, "commission_currency": "USD"} // no utm, customer, items
	o3 := map[string]any{"id": "o-3", "status": "approved", "value": 2500, "currency": "BRL", "payment_method": "credit_card",
		"created_at": "2026-03-10T12:10:00Z", "customer": map[string]any{"email": "bia@x.com"}, "commission_value": 2000}
	o3refund := map[string]any{"id": "o-3", "status": "refunded", "value": 2500, "currency": "BRL",
		"created_at": "2026-03-10T12:10:00Z", "commission_value": 2000}
	o4 := map[string]any{"id": "o-4", "status": "failed", "value": 700, "currency": "BRL", "created_at": "2026-03-10T12:20:00Z"}
	for _, s := range []sent{
		{o1, at(1), 200}, {o2, at(2), 200}, {o3, at(3), 200}, {o4, at(4), 200},
		{o2paid, at(5), 200}, {o3refund, at(6), 200},
		{map[string]any{"id": "o-5", "status": "approved", "value": 1, "created_at": "2026-03-10T12:00:00Z", "payment_method": "cash"}, at(7), 400},
	} {
		s.tx["updated_at"] = s.at.Format(time.RFC3339)
		r := e.webhook(key, s.tx)
		if r.Status != s.want {
			t.Fatalf("order %v: %d %s", s.tx["id"], r.Status, r.Body)
		}
		if s.want == 400 {
			if body := wantError(t, r, 400, "validation_error", "invalid_parameter"); !strings.Contains(fmt.Sprint(body), "payment_method") {
				t.Fatalf("the error does not name payment_method: %s", r.Body)
			}
		}
	}
	// A repeat of the paid webhook changes nothing.
	if r := e.webhook(key, o2paid); r.Status != 200 {
		t.Fatalf("repeat: %d %s", r.Status, r.Body)
	}
	e.drain()
	if r := e.webhook(key, o2paid); r.Status != 200 { // and again after the drain
		t.Fatalf("repeat: %d %s", r.Status, r.Body)
	}
	e.drain()

	return evs
}
