package api_test

import (
	"context"
	"testing"
	"time"

	"mtk/facts"
)

// orderLeadAndType is a stored order's lead (empty: none) and customer type.
func (e *env) orderLeadAndType(t *testing.T, id string) (lead, customerType string) {
	t.Helper()
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT coalesce(lead_id, ''), customer_type FROM orders WHERE transaction_id = $1",
		id).Scan(&lead, &customerType); err != nil {
		t.Fatal(err)
	}
	return lead, customerType
}

// reportedByAd is the ad view's tx_revenue by ad under the reported model, over March 2026.
func (e *env) reportedByAd(t *testing.T, tn trackingTenant) any {
	t.Helper()
	e.drain()
	r := e.do("POST", "/v3/query", map[string]any{"project_id": tn.project.ID, "fields": []string{"tx_revenue"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad"}}, bearer(tn.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	return r.JSON(t)["data"]
}

// An order that arrives before any event of its customer makes the customer's lead (its
// customer type is then known); the customer's later events join that lead, and the order's
// credits follow them: a touch made before the order but arriving after it (a server-side event
// with an earlier timestamp) is credited, one made after the order is credited by no model, nor
// by reported. An order naming nobody stays lead-less.
func TestOrderBeforeItsCustomersFirstEvent(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now()
	o := order("tx-1", "approved", 10000, now)
	delete(o, "utm")
	o["customer"] = map[string]any{"email": "Late@X.com", "name": "Lia"}
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	lead, customerType := e.orderLeadAndType(t, "tx-1")
	if lead == "" || customerType != "new" {
		t.Fatalf("the order's lead %q, customer type %q: want a new lead, new", lead, customerType)
	}
	e.drain()
	tx1 := facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(10000, 2500)}
	e.checkCredits(t, "the order alone", a.project.ID, tx1)

	event := func(at time.Time, utm map[string]string) {
		t.Helper()
		body := map[string]any{"config": map[string]any{"name": "Lead"}, "timestamp": at.Unix(), "utm": utm,
			"lead": map[string]any{"email": "late@x.com"}}
		r := e.event(body, bearer(a.key)...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if got, _ := r.JSON(t)["lead_id"].(string); got != lead {
			t.Fatalf("the customer's event joined lead %q, want the order's %q", got, lead)
		}
	}
	// A touch after the order: credited by no model, and reported leaves the order unattributed,
	// also through a later webhook of the order.
	event(orderCreated.Add(time.Hour), attributedUTM)
	e.drain()
	e.checkCredits(t, "a touch after the order", a.project.ID, tx1)
	o["updated_at"] = now.Add(time.Minute).Format(time.RFC3339)
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, e.reportedByAd(t, a), `[]`)

	// A touch two days before the order, arriving now: the models credit it within the drain.
	before := orderCreated.Add(-48 * time.Hour)
	event(before, attributedUTM)
	e.drain()
	tx1.Touches = []facts.Touch{{Time: before, Entity: seededAd(a)}}
	e.checkCredits(t, "a late touch before the order", a.project.ID, tx1)

	// No identifier, no lead.
	o = order("tx-2", "approved", 500, now)
	o["customer"] = map[string]any{"name": "Anon"}
	delete(o, "utm")
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	if lead, customerType := e.orderLeadAndType(t, "tx-2"); lead != "" || customerType != "" {
		t.Fatalf("an order naming nobody: lead %q, customer type %q", lead, customerType)
	}
}

// reported credits the latest UTM touch of the order's person at or before the order, merged
// leads included: lead A's touch (before the order) counts for an order of lead B once A is
// merged into B, and A's later touch (after the order, with another UTM) does not.
func TestReportedFollowsMergedLeads(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now()
	phone := map[string]any{"phone": "+55 11 97777-0000"}
	send := func(body map[string]any) {
		t.Helper()
		if r := e.event(body, bearer(a.key)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	send(map[string]any{"config": map[string]any{"name": "PageView"}, "lead": phone}) // lead B, the older
	e.clock.Set(now.Add(time.Minute))
	email := map[string]any{"email": "buyer@x.com"}
	send(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, // lead A's touch, before the order
		"timestamp": orderCreated.Add(-24 * time.Hour).Unix(), "lead": email})
	send(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": map[string]string{"utm_source": "newsletter"},
		"timestamp": orderCreated.Add(time.Hour).Unix(), "lead": email}) // after the order
	send(map[string]any{"config": map[string]any{"name": "Contact"}, "lead": map[string]any{"email": "buyer@x.com",
		"phone": "+55 11 97777-0000"}}) // A merges into B
	var merged int
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT count(*) FROM leads WHERE email = 'buyer@x.com' AND merged_into IS NOT NULL").
		Scan(&merged); err != nil || merged != 1 {
		t.Fatalf("lead A merged: %d (%v)", merged, err)
	}
	o := order("tx-1", "approved", 4200, now)
	delete(o, "utm")
	o["customer"] = phone
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, e.reportedByAd(t, a), `[{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_revenue":42}]`)
}
