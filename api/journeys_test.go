package api_test

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mtk/ingest/journeys"
)

// journeySums are the journeys rows of a project: touches per (lead, ad), and orders' summed
// revenue (micros) and refunded count per (order, lead).
func (e *env) journeySums(t *testing.T, projectID string) (touches map[[2]string]uint64, orders map[[2]string][2]int64) {
	t.Helper()
	ctx := context.Background()
	touches, orders = map[[2]string]uint64{}, map[[2]string][2]int64{}
	rows, err := e.ch.Query(ctx, `SELECT lead_id, ad_id, count() FROM journeys_by_lead WHERE project_id = ? AND kind = 'touch'
		GROUP BY lead_id, ad_id`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var lead, ad string
		var n uint64
		if err := rows.Scan(&lead, &ad, &n); err != nil {
			t.Fatal(err)
		}
		touches[[2]string{lead, ad}] = n
	}
	rows.Close()
	rows, err = e.ch.Query(ctx, `SELECT order_id, lead_id, toInt64(sum(tx_revenue)), toInt64(sum(tx_count_refunded))
		FROM journeys_by_lead WHERE project_id = ? AND kind = 'order' GROUP BY order_id, lead_id`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var order, lead string
		var rev, refunded int64
		if err := rows.Scan(&order, &lead, &rev, &refunded); err != nil {
			t.Fatal(err)
		}
		orders[[2]string{order, lead}] = [2]int64{rev, refunded}
	}
	return touches, orders
}

// The journey outbox writes each touch and order change once: an event of a lead whose UTM
// resolves is a touch (one without UTM is not), a refund negates the sale under its lead, a
// webhook naming another customer moves the order to that lead; models then credit the touch.
func TestJourneysWrittenOnce(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	key := a.custom.WebhookKey
	now := e.clock.Now()
	r := e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM,
		"timestamp": now.Add(-5 * 24 * time.Hour).Unix(), "lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	lead, _ := r.JSON(t)["lead_id"].(string)
	e.event(map[string]any{"config": map[string]any{"name": "PageView"}, "lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	send := func(o map[string]any) {
		t.Helper()
		if r := e.webhook(key, o); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	// tx-1: sold, then refunded by a status-only webhook.
	send(order("tx-1", "approved", 10000, now.Add(-time.Hour)))
	refund := order("tx-1", "refunded", 10000, now)
	delete(refund, "customer")
	delete(refund, "utm")
	send(refund)
	// tx-2: a stranger's order, then re-attributed to the buyer.
	o := order("tx-2", "approved", 2500, now.Add(-time.Hour))
	o["customer"] = map[string]any{"email": "stranger@x.com"}
	delete(o, "utm")
	send(o)
	send(order("tx-2", "approved", 2500, now))
	e.drain()
	e.drain()
	touches, orders := e.journeySums(t, a.project.ID)
	if len(touches) != 1 || touches[[2]string{lead, adID}] != 1 {
		t.Fatalf("touches %v, want one of lead %s on ad %s", touches, lead, adID)
	}
	conn := a.custom.ID
	want := map[[2]string][2]int64{
		{conn + "/tx-1", lead}: {0, 1},
		{conn + "/tx-2", ""}:   {0, 0},
		{conn + "/tx-2", lead}: {2500 * 10000, 0},
	}
	for k, v := range orders {
		if want[k] != v {
			t.Errorf("order %v: %v, want %v", k, v, want[k])
		}
	}
	if len(orders) != len(want) {
		t.Errorf("orders %v, want %v", orders, want)
	}
	for _, model := range []string{"last_click", "linear", "time_decay"} {
		r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue", "tx_count_refunded"},
			"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad",
				"attribution": map[string]any{"model": model, "window_days": 7}}}, bearer(a.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantJSON(t, r.JSON(t)["data"], `[{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_count_refunded":1,"tx_revenue":25}]`)
	}
	// By click date the touch's day shows the orders after it; a later order, landing on another
	// day, changes that cached answer.
	byClick := map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"},
		"time":     map[string]any{"start": "2026-03-05", "end": "2026-03-05"},
		"metadata": map[string]any{"attribution": map[string]any{"model": "first_click", "date": "click"}}}
	for i, want := range []struct{ data, cache string }{{`[{"tx_revenue":25}]`, "miss"}, {`[{"tx_revenue":25}]`, "hit"},
		{`[{"tx_revenue":35}]`, "miss"}} {
		if i == 2 {
			send(order("tx-3", "approved", 1000, now))
			e.drain()
		}
		r := e.do("POST", "/v3/query", byClick, bearer(a.readKey)...)
		if r.Status != 200 || cacheOf(r) != want.cache {
			t.Fatalf("%d %s, cache %s, want %s", r.Status, r.Body, cacheOf(r), want.cache)
		}
		wantJSON(t, r.JSON(t)["data"], want.data)
	}
	r = e.do("POST", "/v3/query/explain", byClick, bearer(a.readKey)...)
	if r.Status != 200 || !strings.Contains(string(r.Body), "FROM credits_daily") {
		t.Fatalf("explain: %d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["attribution"], `{"date":"click","model":"first_click","table":"credits_daily","touches":"ads","window_days":28}`)
	r = e.do("GET", "/v3/fields", nil, bearer(a.readKey)...)
	wantJSON(t, r.JSON(t)["attribution"], `{"dates":["conversion","click"],"models":["reported","last_click","first_click","linear","position_based","time_decay"],"touches":{"defaults":{"ads":"ads","traffic":"all"},"sets":["ads","all"]},"window_days":{"default":28,"max":90,"min":1}}`)
}

// Bad attribution members are 400 invalid_parameter naming the member.
func TestAttributionValidation(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	// An order's own dimension keeps the reported attribution: models credit touches.
	r := e.do("POST", "/v3/query", `{"project_id":"`+a.project.ID+`","fields":["tx_revenue"],"metadata":{"dimensions":["payment_method"],`+
		`"attribution":{"model":"linear"}}}`, bearer(a.readKey)...)
	wantJSON(t, wantError(t, r, 400, "validation_error", "invalid_parameter")["details"],
		`["metadata.dimensions[0]: dimension \"payment_method\" is an order's, and models credit touches (utm_*, referrer_host, landing_path, device): ask it with the reported model"]`)
	for attr, want := range map[string]string{
		`{"model":"best"}`:                    `metadata.attribution.model: unknown model "best"; want one of reported, last_click, first_click, linear, position_based, time_decay`,
		`{"window_days":0}`:                   "metadata.attribution.window_days: must be between 1 and 90",
		`{"window_days":91}`:                  "metadata.attribution.window_days: must be between 1 and 90",
		`{"date":"sale"}`:                     `metadata.attribution.date: unknown date "sale"; want one of conversion, click`,
		`{"model":"linear","touches":"paid"}`: `metadata.attribution.touches: unknown touch set "paid"; want one of ads, all`,
		`{"touches":"all"}`:                   `metadata.attribution.touches: the reported model counts the touches of the "ads" view ("ads"); ask "all" with a crediting model (last_click, first_click, linear, position_based, time_decay)`,
		`{"touches":"ads","windows":7}`:       "metadata.attribution.windows: unknown member; want one of model, window_days, date, touches",
		`{"window_days":"7"}`:                 "",
		`{"model":"linear"}x`:                 "",
		`{"model":"lin\u0000"}`:               "",
	} {
		r := e.do("POST", "/v3/query", `{"project_id":"`+a.project.ID+`","fields":["tx_revenue"],"metadata":{"attribution":`+attr+`}}`,
			bearer(a.readKey)...)
		body := wantError(t, r, 400, "validation_error", "invalid_parameter")
		if want != "" {
			details, _ := json.Marshal([]string{want})
			wantJSON(t, body["details"], string(details))
		}
	}
}

// The backfill queues what was stored before the journey outbox, once: run twice (the second
// with redo), the journeys hold each touch (an event's, a click's with a lead) and each order's
// state once; a click whose UTM names no ad is a touch on no ad, an event with no UTM none.
func TestJourneysBackfill(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	clickID, _ := e.click(a, attributedUTM)
	unresolved, _ := e.click(a, map[string]string{"utm_campaign": "Unknown|1"})
	now := e.clock.Now()
	r := e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM,
		"timestamp": now.Add(-2 * 24 * time.Hour).Unix(), "lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	lead, _ := r.JSON(t)["lead_id"].(string)
	for _, click := range []int64{clickID, unresolved} {
		e.event(map[string]any{"config": map[string]any{"name": "Contact"}, "lead": map[string]any{"email": "buyer@x.com"},
			"click_id": click}, bearer(a.key)...)
	}
	if r := e.webhook(a.custom.WebhookKey, order("tx-1", "approved", 4000, now)); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// As before the journey outbox: nothing of it queued, no order marked.
	ctx := context.Background()
	if _, err := e.store.Pool().Exec(ctx, "DELETE FROM journey_outbox; UPDATE orders SET journey = false"); err != nil {
		t.Fatal(err)
	}
	e.drain()
	var reports []journeys.Progress
	for _, redo := range []bool{false, true} {
		if err := journeys.Backfill(ctx, e.store.Pool(), e.ch, e.resolver, redo, now, func(p journeys.Progress) {
			reports = append(reports, p)
		}); err != nil {
			t.Fatal(err)
		}
		e.drain()
	}
	touches, orders := e.journeySums(t, a.project.ID)
	if len(touches) != 2 || touches[[2]string{lead, adID}] != 2 || touches[[2]string{lead, ""}] != 1 {
		t.Errorf("touches %v, want two of lead %s on ad %s and one on none", touches, lead, adID)
	}
	var clicks uint64
	if err := e.ch.QueryRow(ctx, "SELECT count() FROM journeys_by_lead WHERE project_id = ? AND origin = 'link_click' AND event_id = ?",
		a.project.ID, strconv.FormatInt(clickID, 10)).Scan(&clicks); err != nil || clicks != 1 {
		t.Errorf("the click's touches: %d %v, want 1", clicks, err)
	}
	if len(orders) != 1 || orders[[2]string{a.custom.ID + "/tx-1", lead}] != [2]int64{4000 * 10000, 0} {
		t.Errorf("orders %v", orders)
	}
	want := journeys.Progress{Project: a.project.ID, Orders: 1, Touches: 3, Done: true}
	if !slices.Contains(reports, want) || reports[len(reports)-1] != (journeys.Progress{Project: a.project.ID, Done: true}) {
		t.Errorf("progress %+v, want %+v then nothing more", reports, want)
	}
}

// A touch under one identifier credits an order found under another once an event proves they are
// one person: the leads merge, and the touch and the order, written under each, meet.
func TestJourneysFollowLeadMerges(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now()
	phone := map[string]any{"phone": "+55 11 97777-0000"}
	e.event(map[string]any{"config": map[string]any{"name": "PageView"}, "lead": phone}, bearer(a.key)...)
	e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM,
		"timestamp": now.Add(-3 * 24 * time.Hour).Unix(), "lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	o := order("tx-1", "approved", 4200, now)
	delete(o, "utm")
	o["customer"] = phone
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	query := map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad",
			"attribution": map[string]any{"model": "first_click"}}}
	for _, want := range []string{`[]`, `[{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_revenue":42}]`} {
		if want != `[]` { // the event that proves the phone and the e-mail are one person
			e.event(map[string]any{"config": map[string]any{"name": "Contact"}, "lead": map[string]any{"email": "buyer@x.com",
				"phone": "+55 11 97777-0000"}}, bearer(a.key)...)
		}
		e.drain()
		r := e.do("POST", "/v3/query", query, bearer(a.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		wantJSON(t, r.JSON(t)["data"], want)
	}
}

// click follows a new tracking link of the tenant with utm (sending headers, a browser's
// User-Agent say) and returns the click's id (as the chat message's decode answers it) and time.
func (e *env) click(tn trackingTenant, utm map[string]string, headers ...string) (int64, time.Time) {
	e.t.Helper()
	r := e.do("POST", "/v3/tracking/links", map[string]any{"name": "Promo", "phone": "5511912345678", "message": "Oi!", "utm": utm},
		bearer(tn.key)...)
	if r.Status != 201 {
		e.t.Fatalf("%d %s", r.Status, r.Body)
	}
	text := e.follow("/l/"+r.JSON(e.t)["slug"].(string), headers...).Query().Get("text")
	id, ok := e.decode(tn.key, text)[0]["decoded_id"].(float64)
	if !ok {
		e.t.Fatalf("no click in %q", text)
	}
	return int64(id), e.clock.Now()
}

// clickTouches are the journey outbox's link-click touches of a click: time, lead and ad of each.
func (e *env) clickTouches(t *testing.T, clickID int64) []string {
	t.Helper()
	rows, err := e.store.Pool().Query(context.Background(), `SELECT ts, lead_id, ad_id FROM journey_outbox
		WHERE kind = 'touch' AND origin = 'link_click' AND event_id = $1 ORDER BY id`, strconv.FormatInt(clickID, 10))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var ts time.Time
		var lead, ad string
		if err := rows.Scan(&ts, &lead, &ad); err != nil {
			t.Fatal(err)
		}
		out = append(out, ts.UTC().Format(time.RFC3339)+" "+lead+" "+ad)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// clickLead is the lead a click got ("" for none).
func (e *env) clickLead(t *testing.T, clickID int64) string {
	t.Helper()
	var lead *string
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT lead_id FROM link_clicks WHERE id = $1", clickID).Scan(&lead); err != nil {
		t.Fatal(err)
	}
	if lead == nil {
		return ""
	}
	return *lead
}

// A tracking-link click is a touch of the lead whose event first carries its id (click_id, the
// decoded_id of their chat message): once, at the click's time, on the ad its UTM names, whatever
// repeats; models then credit the lead's order to it. A click whose UTM names no ad gets its lead
// and a touch on no ad, which models do not credit yet; another workspace's click is ignored.
func TestJourneysLinkClicks(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	e.seedEntities(a)
	clickID, clickedAt := e.click(a, attributedUTM)
	unresolved, unresolvedAt := e.click(a, map[string]string{"utm_source": "alpha", "utm_campaign": "Unknown|1"})
	e.clock.Advance(2 * time.Hour)
	phone := map[string]any{"phone": "+55 11 97777-0000"}
	message := func(eventID string, lead map[string]any, click int64) map[string]any {
		return map[string]any{"event_id": eventID, "config": map[string]any{"name": "Contact"}, "source": "whatsapp",
			"lead": lead, "click_id": click}
	}
	r := e.event(message("msg-1", phone, clickID), bearer(a.key)...)
	lead, _ := r.JSON(t)["lead_id"].(string)
	if r.Status != 200 || lead == "" {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	want := []string{clickedAt.UTC().Format(time.RFC3339) + " " + lead + " " + adID}
	if got := e.clickTouches(t, clickID); !slices.Equal(got, want) || e.clickLead(t, clickID) != lead {
		t.Fatalf("touches %v, lead %q; want %v, %s", got, e.clickLead(t, clickID), want, lead)
	}
	// The message again (a retry, a later message, another person forwarding it): no other touch.
	e.event(message("msg-1", phone, clickID), bearer(a.key)...)
	e.event(message("msg-2", phone, clickID), bearer(a.key)...)
	other := e.event(message("msg-3", map[string]any{"email": "other@x.com"}, clickID), bearer(a.key)...)
	if got := e.clickTouches(t, clickID); other.Status != 200 || !slices.Equal(got, want) || e.clickLead(t, clickID) != lead {
		t.Fatalf("after repeats: touches %v, lead %q; want %v, %s", got, e.clickLead(t, clickID), want, lead)
	}
	e.event(message("msg-4", phone, unresolved), bearer(a.key)...)
	onNone := []string{unresolvedAt.UTC().Format(time.RFC3339) + " " + lead + " "}
	if got := e.clickTouches(t, unresolved); !slices.Equal(got, onNone) || e.clickLead(t, unresolved) != lead {
		t.Fatalf("a click naming no ad: touches %v, lead %q", got, e.clickLead(t, unresolved))
	}
	foreign, _ := e.click(b, attributedUTM)
	if r := e.event(message("msg-5", phone, foreign), bearer(a.key)...); r.Status != 200 || e.clickLead(t, foreign) != "" {
		t.Fatalf("another workspace's click: %d %s, lead %q", r.Status, r.Body, e.clickLead(t, foreign))
	}
	for click, detail := range map[string]string{"0": "click_id: a click id (decoded_id), from 1 to 2^53 - 1",
		"9007199254740992": "click_id: a click id (decoded_id), from 1 to 2^53 - 1", `"1"`: ""} {
		r := e.do("POST", "/v3/tracking/events", `{"config":{"name":"Contact"},"click_id":`+click+`}`, bearer(a.key)...)
		body := wantError(t, r, 400, "validation_error", "invalid_parameter")
		if detail != "" {
			wantJSON(t, body["details"], `["`+detail+`"]`)
		}
	}
	e.drain()
	touches, _ := e.journeySums(t, a.project.ID)
	if len(touches) != 2 || touches[[2]string{lead, adID}] != 1 || touches[[2]string{lead, ""}] != 1 {
		t.Fatalf("journeys' touches %v, want the click's on ad %s and the other's on none", touches, adID)
	}
	o := order("tx-1", "approved", 4200, e.clock.Now())
	o["created_at"], o["customer"] = e.clock.Now().Format(time.RFC3339), phone
	delete(o, "utm")
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	r = e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad",
			"attribution": map[string]any{"model": "last_click", "window_days": 1}}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["data"], `[{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_revenue":42}]`)
}
