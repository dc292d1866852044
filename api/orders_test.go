package api_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"mtk/ingest/conversions"
	"mtk/ingest/outbox"
	"mtk/internal/adsim"
	"mtk/internal/testenv"
	"mtk/platform"
)

func (e *env) webhook(key string, tx map[string]any) response {
	e.t.Helper()
	return e.do("POST", "/v2/tracking/generic?k="+key, map[string]any{"transaction": tx})
}

func order(id, status string, value int64, updated time.Time) map[string]any {
	return map[string]any{"id": id, "status": status, "value": value, "currency": "BRL",
		"created_at": "2026-03-10T12:00:00Z", "updated_at": updated.Format(time.RFC3339),
		"customer": map[string]any{"email": "buyer@x.com"}, "utm": attributedUTM,
		"items": []map[string]any{{"id": "sku-1", "name": "Shoe", "quantity": 1, "unit_price": value, "cost": value / 4}}}
}

func TestOrderWebhookErrors(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	key := a.custom.WebhookKey
	t0 := e.clock.Now()
	wantError(t, e.webhook("whk_unknown", order("o1", "approved", 100, t0)), 401, "authentication_error", "invalid_api_key")
	wantError(t, e.do("POST", "/v2/tracking/generic", `{"transaction":{}}`), 401, "authentication_error", "invalid_api_key")
	wantError(t, e.do("POST", "/v2/tracking/generic?k=whk_unknown", `{`), 401, "authentication_error", "invalid_api_key")
	wantError(t, e.do("POST", "/v2/tracking/generic?k="+key, `{`), 400, "validation_error", "invalid_parameter")
	wantError(t, e.do("POST", "/v2/tracking/generic?k="+key, map[string]any{}), 400, "validation_error", "missing_parameter")
	for name, mod := range map[string]func(map[string]any){
		"bad status":      func(o map[string]any) { o["status"] = "paid" },
		"float value":     func(o map[string]any) { o["value"] = 19.99 },
		"created in 1965": func(o map[string]any) { o["created_at"] = "1965-06-01T10:00:00Z" },
		"created in 2200": func(o map[string]any) { o["created_at"] = "2200-06-01T10:00:00Z" },
		"negative value":  func(o map[string]any) { o["value"] = -1 },
		"bad date":        func(o map[string]any) { o["created_at"] = "yesterday" },
		"bad currency":    func(o map[string]any) { o["currency"] = "R$" },
		"bad item":        func(o map[string]any) { o["items"] = []map[string]any{{"id": "x", "quantity": 0}} },
		"long utm": func(o map[string]any) {
			o["utm"] = map[string]any{"utm_source": strings.Repeat("s", 501)}
		},
		"long customer name": func(o map[string]any) { o["customer"] = map[string]any{"name": strings.Repeat("n", 256)} },
		"long item name": func(o map[string]any) {
			o["items"] = []map[string]any{{"id": "x", "name": strings.Repeat("n", 256), "quantity": 1}}
		},
		"long src": func(o map[string]any) { o["src"] = strings.Repeat("s", 256) },
		"bad commission currency": func(o map[string]any) {
			o["commission_currency"] = strings.Repeat("x", 1000)
		},
		"too many items": func(o map[string]any) {
			o["items"] = slices.Repeat([]map[string]any{{"id": "x", "quantity": 1}}, 1001)
		},
	} {
		o := order("o1", "approved", 100, t0)
		mod(o)
		r := e.webhook(key, o)
		if d := wantError(t, r, 400, "validation_error", "invalid_parameter")["details"]; name != "float value" && d == nil {
			t.Fatalf("%s: no details: %s", name, r.Body)
		}
	}
	o := order("o1", "approved", 100, t0)
	delete(o, "id")
	delete(o, "status")
	errObj := wantError(t, e.webhook(key, o), 400, "validation_error", "missing_parameter")
	wantJSON(t, errObj["details"], `["transaction.id: required","transaction.status: required"]`)
	r := e.webhook(key, order("o1", "approved", 100, t0))
	if r.Status != 200 || string(r.Body) != `{"success":true}` {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// 50 concurrent webhooks for one transaction, in shuffled updated_at order, end in the newest
// state, and ClickHouse's sums equal what PostgreSQL holds.
func TestOrderConcurrentWebhooks(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	statuses := []string{"pending", "approved", "refunded", "failed", "chargeback"}
	t0 := e.clock.Now().Add(-time.Hour)
	versions := make([]map[string]any, 50)
	for i := range versions {
		versions[i] = order("tx-1", statuses[i%len(statuses)], int64(1000+i), t0.Add(time.Duration(i)*time.Second))
	}
	versions[49]["status"] = "approved" // the newest
	rand.Shuffle(len(versions), func(i, j int) { versions[i], versions[j] = versions[j], versions[i] })
	var wg sync.WaitGroup
	for _, v := range versions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r := e.webhook(a.custom.WebhookKey, v); r.Status != 200 {
				t.Errorf("%d %s", r.Status, r.Body)
			}
		}()
	}
	// A second transaction, pending then approved, for the sums.
	e.webhook(a.custom.WebhookKey, order("tx-2", "pending", 500, t0))
	e.webhook(a.custom.WebhookKey, order("tx-2", "approved", 500, t0.Add(time.Minute)))
	wg.Wait()
	var status string
	var value int64
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT status, value FROM orders WHERE transaction_id = 'tx-1'").Scan(&status, &value); err != nil {
		t.Fatal(err)
	}
	if status != "approved" || value != 1049 {
		t.Fatalf("stored %s %d, want the newest: approved 1049", status, value)
	}
	e.drain()
	truth := map[string]string{
		"tx_revenue":        "coalesce(sum(value) FILTER (WHERE status = 'approved'), 0) * 10000",
		"tx_count":          "count(*) FILTER (WHERE status = 'approved')",
		"tx_count_total":    "count(*) FILTER (WHERE status <> 'failed')",
		"tx_count_pending":  "count(*) FILTER (WHERE status = 'pending')",
		"tx_count_refunded": "count(*) FILTER (WHERE status IN ('refunded', 'chargeback'))",
		"tx_product_costs":  "coalesce(sum(product_cost) FILTER (WHERE status = 'approved'), 0) * 10000",
	}
	for col, expr := range truth {
		var want int64
		if err := e.store.Pool().QueryRow(context.Background(), "SELECT ("+expr+")::bigint FROM orders WHERE project_id = $1", a.project.ID).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := e.chSum(t, a.project.ID, col); got != want {
			t.Errorf("%s: ClickHouse %d, PostgreSQL %d", col, got, want)
		}
	}
	// An older update after all that changes nothing.
	e.webhook(a.custom.WebhookKey, order("tx-1", "failed", 1, t0))
	e.drain()
	if got := e.chSum(t, a.project.ID, "tx_count"); got != 2 {
		t.Fatalf("tx_count %d after a stale update", got)
	}
	// One Purchase was queued per transaction, for the tenant's pixel... none is linked here.
	if n := e.pgCount(t, "SELECT count(*) FROM conversion_outbox"); n != 0 {
		t.Fatalf("%d conversions without a pixel", n)
	}
	r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue", "tx_count", "tx_count_total", "aov"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad"}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["data"], `[{"ad_id":"902","ad_name":"Video 1","aov":7.75,"source":"alpha_ads","tx_count":2,"tx_count_total":2,"tx_revenue":15.49}]`)
}

// An order without UTM takes its lead's; the lead is found by e-mail.
func TestOrderTakesTheLeadsUTM(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	r := e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "lead": map[string]any{"email": "Buyer@x.com"}}, bearer(a.key)...)
	lead := r.JSON(t)["lead_id"]
	o := order("tx-9", "approved", 2000, e.clock.Now())
	delete(o, "utm")
	// Bought after the touch: reported never credits a touch made after the order.
	o["created_at"] = e.clock.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var got string
	var campaign string
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT lead_id, attr_campaign_id FROM orders WHERE transaction_id = 'tx-9'").Scan(&got, &campaign); err != nil {
		t.Fatal(err)
	}
	if got != lead || campaign != campaignID {
		t.Fatalf("lead %s campaign %s, want %v %s", got, campaign, lead, campaignID)
	}
}

// The forwarded Purchase and events reach the simulator in Meta's format, once each, with the
// hashes of the known normalized values.
func TestForwardingToAlpha(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	sim, err := adsim.New(adsim.Config{Seed: 7, Clock: e.clock, Days: 10, AccountsPerNetwork: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	var acct adsim.AccountInfo
	for _, ac := range sim.Accounts() {
		if ac.Network == adsim.Alpha {
			acct = ac
		}
	}
	ctx := context.Background()
	if _, err := e.store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: a.project.ID, Kind: platform.KindAlpha,
		Name: "Alpha sim", SourceID: acct.ID, APIBaseURL: srv.URL + "/alpha/v19.0", AccessToken: acct.AccessToken}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []platform.Container{a.v2, a.v3} {
		if err := e.store.Containers.LinkPixel(ctx, c.ID, platform.LinkedPixel{Source: platform.KindAlpha, ID: acct.PixelID, Name: "px"}); err != nil {
			t.Fatal(err)
		}
	}
	e.rebuild() // forget cached containers without their pixel
	r := e.event(map[string]any{"event_id": "lead-1", "source": "website",
		"config": map[string]any{"name": "signup", "alpha": map[string]any{"name": "Lead"}},
		"lead":   map[string]any{"email": " Ana@Example.COM ", "phone": "+55 (11) 98888-7777", "first_name": "Ana", "city": "São Paulo", "country": "BR"},
		"page":   map[string]any{"url": "https://acme.example/signup?fbclid=abc"}, "cookies": map[string]string{"_fbp": "fb.1.1.2"}},
		append(bearer(a.key), "User-Agent", "Mozilla/5.0 test")...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// Approved twice (a retry) and then refunded: one Purchase.
	now := e.clock.Now()
	for _, st := range []struct {
		status string
		at     time.Time
	}{{"approved", now}, {"approved", now.Add(time.Second)}, {"refunded", now.Add(time.Minute)}} {
		if r := e.webhook(a.custom.WebhookKey, order("tx-77", st.status, 12990, st.at)); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	// A website event without user agent cannot be sent: it is dead at once.
	e.event(map[string]any{"event_id": "bad-1", "config": map[string]any{"name": "x", "alpha": map[string]any{"name": "PageView", "sourceKey": "website"}}}, bearer(a.key)...)
	d := conversions.NewDeliverer(e.store.Pool(), e.store.Connections, srv.Client(), e.clock, nil)
	if n, err := d.RunOnce(ctx); err != nil || n != 2 {
		t.Fatalf("sent %d, %v", n, err)
	}
	if n, err := d.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("sent again %d, %v", n, err)
	}
	log := sim.CAPIEvents(acct.PixelID)
	if log.Received != 2 || log.Duplicates != 0 || len(log.Events) != 2 {
		t.Fatalf("received %+v", log)
	}
	lead := string(log.Events[0].Raw)
	for _, want := range []string{`"event_name":"Lead"`, `"event_id":"lead-1"`, `"action_source":"website"`,
		`"event_source_url":"https://acme.example/signup?fbclid=abc"`,
		`"em":["` + testenv.SHA256("ana@example.com") + `"]`, `"ph":["` + testenv.SHA256("5511988887777") + `"]`,
		`"fn":["` + testenv.SHA256("ana") + `"]`, `"ct":["` + testenv.SHA256("sãopaulo") + `"]`, `"country":["` + testenv.SHA256("br") + `"]`,
		`"client_user_agent":"Mozilla/5.0 test"`, `"fbp":"fb.1.1.2"`, `"fbc":"fb.1.` + fmt.Sprint(now.UnixMilli()) + `.abc"`} {
		if !strings.Contains(lead, want) {
			t.Errorf("Lead event lacks %s:\n%s", want, lead)
		}
	}
	purchase := string(log.Events[1].Raw)
	for _, want := range []string{`"event_name":"Purchase"`, `"event_id":"tx-77"`, `"value":129.90`, `"currency":"brl"`,
		`"order_id":"tx-77"`, `"em":["` + testenv.SHA256("buyer@x.com") + `"]`, `"contents":[{"id":"sku-1","quantity":1,"item_price":129.90}]`} {
		if !strings.Contains(purchase, want) {
			t.Errorf("Purchase lacks %s:\n%s", want, purchase)
		}
	}
	stats, err := conversions.Count(ctx, e.store.Pool())
	if err != nil || stats.Conversions["sent"] != 2 || stats.Conversions["dead"] != 1 {
		t.Fatalf("stats %+v %v", stats, err)
	}
}

// The order life cycles a checkout produces, checked by ad through /v3/query: status updates
// without utm or customer keep the order on its ad (a refund lands where the sale did), an
// older update changes nothing, and new explicit utm moves the order by signed differences.
func TestOrderLifeCyclesKeepAttribution(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	key := a.custom.WebhookKey
	t0 := e.clock.Now().Add(-time.Hour)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	bare := func(id, status string, value int64, updated time.Time) map[string]any {
		o := order(id, status, value, updated)
		delete(o, "utm")
		delete(o, "customer")
		return o
	}
	send := func(o map[string]any) {
		t.Helper()
		if r := e.webhook(key, o); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	// pending → approved → refunded, the later two status-only.
	send(order("tx-1", "pending", 10000, at(0)))
	send(bare("tx-1", "approved", 10000, at(1)))
	send(bare("tx-1", "refunded", 10000, at(2)))
	// approved → chargeback, status-only.
	send(order("tx-2", "approved", 5000, at(0)))
	send(bare("tx-2", "chargeback", 5000, at(3)))
	// Out of order: the approval arrives before the pending state it follows.
	send(bare("tx-3", "approved", 7000, at(5)))
	send(order("tx-3", "pending", 7000, at(4)))
	// Approved on the ad, then re-attributed to the campaign alone by explicit utm.
	send(order("tx-4", "approved", 3000, at(0)))
	moved := bare("tx-4", "approved", 3000, at(6))
	moved["utm"] = map[string]string{"utm_campaign": "Spring Sale|" + campaignID}
	send(moved)
	// Approved on the ad, then a status-only approval with a new amount.
	send(order("tx-5", "approved", 2000, at(0)))
	send(bare("tx-5", "approved", 2500, at(7)))
	e.drain()

	r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID,
		"fields": []string{"tx_count", "tx_count_total", "tx_count_pending", "tx_count_refunded", "tx_revenue"},
		"time":   map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad"},
		"order": map[string]any{"ad_id": "asc"}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// tx-3 is not attributed (its first state had no utm and no customer) until its pending state
	// brings utm; older than the approval, that state changes nothing, tx-3 stays unattributed.
	wantJSON(t, r.JSON(t)["data"], `[`+
		`{"ad_id":null,"ad_name":null,"source":"alpha_ads","tx_count":1,"tx_count_pending":0,"tx_count_refunded":0,"tx_count_total":1,"tx_revenue":30},`+
		`{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_count":1,"tx_count_pending":0,"tx_count_refunded":2,"tx_count_total":3,"tx_revenue":25}]`)
}

// A webhook whose facts would pass the fact outbox's bound is refused whole with 503 and
// Retry-After (no order row, no fact), and the checkout's retry after the drain is stored. A
// smaller write (an unattributed order: its business rows only) passes meanwhile.
func TestOrderFactOutboxFull(t *testing.T) {
	e := newEnv(t)
	e.eventsConfig.Bounds = outbox.Bounds{Facts: 6}
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	key := a.custom.WebhookKey
	t0 := e.clock.Now().Add(-time.Hour)
	if r := e.webhook(key, order("tx-1", "approved", 1000, t0)); r.Status != 200 {
		t.Fatalf("first: %d %s", r.Status, r.Body)
	}
	// The sale wrote 3 rows (its fact, its business order and item rows); the refund negates them
	// and adds its own: 6 more, 3 too many.
	refund := order("tx-1", "refunded", 1000, t0.Add(time.Minute))
	r := e.webhook(key, refund)
	wantError(t, r, 503, "api_error", "service_unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", r.Header)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM orders WHERE status = 'refunded'"); n != 0 {
		t.Fatalf("a refused webhook changed the order (%d refunded)", n)
	}
	plain := order("tx-2", "approved", 500, t0)
	delete(plain, "utm")
	plain["customer"] = map[string]any{"email": "other@x.com"}
	if r := e.webhook(key, plain); r.Status != 200 {
		t.Fatalf("an order without facts (2 business rows): %d %s", r.Status, r.Body)
	}
	e.drain()
	if r := e.webhook(key, refund); r.Status != 200 {
		t.Fatalf("retry after the drain: %d %s", r.Status, r.Body)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM fact_outbox"); n != 6 {
		t.Fatalf("%d fact rows after the refund, want its 6", n)
	}
}
