package api_test

import (
	"context"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"mtk/facts"
	"mtk/platform"
)

// creditKey is what credits_raw is summed by: a model, a date and an entity.
type creditKey struct {
	model   string
	byClick bool
	entity  facts.AdEntity
}

// creditSumsSQL sums every measure of the credits family, as Int64, in the family's order.
var creditSumsSQL = "toInt64(sum(" + strings.Join(facts.ColumnNames(facts.CreditsFamily.Measures), ")), toInt64(sum(") + "))"

// creditSums sums a project's credits_raw under windows of w days, leaving out sums of zero.
func (e *env) creditSums(t *testing.T, project string, w int) map[creditKey]facts.Values {
	t.Helper()
	rows, err := e.ch.Query(context.Background(), `SELECT model, by_click, source, connection_id, account_id, campaign_id, adset_id,
			ad_id, `+creditSumsSQL+`
		FROM credits_raw WHERE project_id = ? AND window_days <= ?
		GROUP BY model, by_click, source, connection_id, account_id, campaign_id, adset_id, ad_id`, project, uint8(w))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[creditKey]facts.Values{}
	for rows.Next() {
		var k creditKey
		var byClick uint8
		var v facts.Values
		dest := append([]any{&k.model, &byClick}, k.entity.Dest()...)
		if err := rows.Scan(append(dest, v.Dest(facts.CreditsFamily.Measures)...)...); err != nil {
			t.Fatal(err)
		}
		k.byClick = byClick == 1
		if v != (facts.Values{}) {
			out[k] = v
		}
	}
	return out
}

// wantCredits sums facts.Credits of journeys as creditSums sums credits_raw.
func wantCredits(w int, journeys ...facts.OrderJourney) map[creditKey]facts.Values {
	out := map[creditKey]facts.Values{}
	for _, j := range journeys {
		for _, c := range facts.Credits(j) {
			if int(c.WindowDays) > w {
				continue
			}
			k := creditKey{model: c.Model, byClick: c.ByClick, entity: c.Entity}
			out[k] = out[k].Add(c.Values)
		}
	}
	maps.DeleteFunc(out, func(_ creditKey, v facts.Values) bool { return v == facts.Values{} })
	return out
}

// checkCredits fails t unless credits_raw holds exactly the credits of journeys, for windows of
// every length that moves a breakpoint.
func (e *env) checkCredits(t *testing.T, step, project string, journeys ...facts.OrderJourney) {
	t.Helper()
	for _, w := range []int{1, 2, 3, 6, 7, 12, 28, 90} {
		got, want := e.creditSums(t, project, w), wantCredits(w, journeys...)
		if !maps.Equal(got, want) {
			t.Fatalf("%s, window %d: credits_raw\n%v\nwant\n%v", step, w, got, want)
		}
	}
}

// approved and refunded are an order's values (micros, counts) as its journey rows sum them.
func approved(value, cost int64) facts.Values {
	return facts.Values{facts.TxRevenue: value * facts.MicrosPerMinor, facts.TxCount: 1, facts.TxCountTotal: 1, facts.TxProductCosts: cost * facts.MicrosPerMinor}
}

var refunded = facts.Values{facts.TxCountTotal: 1, facts.TxCountRefunded: 1}

// orderCreated is order()'s created_at.
var orderCreated = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// seededAd is the entity attributedUTM resolves to for tenant tn.
func seededAd(tn trackingTenant) facts.AdEntity {
	return facts.AdEntity{Source: platform.KindAlpha, ConnectionID: tn.alpha.ID, AccountID: *tn.alpha.SourceID,
		CampaignID: campaignID, AdsetID: adsetID, AdID: adID}
}

// Credits follow every change of an order's journey, written as production writes (event
// batches and order webhooks), drained, credited again and drained: a touch; a touch arriving
// late with an earlier time; a refund; an order moved to another lead; an order without a lead.
func TestCreditsFollowJourneys(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	ad := seededAd(a)
	now := e.clock.Now()
	touch := func(at time.Time, email string) facts.Touch {
		t.Helper()
		if r := e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "timestamp": at.Unix(),
			"lead": map[string]any{"email": email}}, bearer(a.key)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		return facts.Touch{Time: at.UTC(), Entity: ad}
	}
	send := func(o map[string]any) {
		t.Helper()
		if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	t1 := touch(now.Add(-5*24*time.Hour), "buyer@x.com")
	send(order("tx-1", "approved", 10000, now))
	e.drain()
	tx1 := facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(10000, 2500), Touches: []facts.Touch{t1}}
	e.checkCredits(t, "one order", a.project.ID, tx1)

	// A touch older than the order's first one arrives after the order was credited.
	t0 := touch(now.Add(-12*24*time.Hour), "buyer@x.com")
	e.drain()
	tx1.Touches = []facts.Touch{t0, t1}
	e.checkCredits(t, "late touch", a.project.ID, tx1)

	// A refund moves every touch's credit: revenue to 0, the refunded count up.
	refund := order("tx-1", "refunded", 10000, now.Add(time.Minute))
	delete(refund, "customer")
	delete(refund, "utm")
	send(refund)
	e.drain()
	tx1.Values = refunded
	e.checkCredits(t, "refund", a.project.ID, tx1)

	// A stranger's order, then re-attributed to the buyer: it gets the buyer's touches.
	o := order("tx-2", "approved", 2500, now)
	o["customer"] = map[string]any{"email": "stranger@x.com"}
	delete(o, "utm")
	send(o)
	e.drain()
	tx2 := facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(2500, 625)}
	e.checkCredits(t, "stranger's order", a.project.ID, tx1, tx2)
	send(order("tx-2", "approved", 2500, now.Add(time.Minute)))
	e.drain()
	tx2.Touches = tx1.Touches
	e.checkCredits(t, "re-attributed order", a.project.ID, tx1, tx2)

	// An order without a lead is credited unattributed, and follows its changes.
	o = order("tx-3", "approved", 700, now)
	delete(o, "customer")
	send(o)
	e.drain()
	var lead *string
	if err := e.store.Pool().QueryRow(context.Background(), "SELECT lead_id FROM orders WHERE transaction_id = 'tx-3'").Scan(&lead); err != nil || lead != nil {
		t.Fatalf("tx-3's lead %v (%v), want none", lead, err)
	}
	tx3 := facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(700, 175)}
	e.checkCredits(t, "order without lead", a.project.ID, tx1, tx2, tx3)
	o = order("tx-3", "refunded", 700, now.Add(time.Minute))
	delete(o, "customer")
	send(o)
	e.drain()
	tx3.Values = refunded
	e.checkCredits(t, "order without lead refunded", a.project.ID, tx1, tx2, tx3)
	if n := e.pgCount(t, "SELECT count(*) FROM credit_dirty"); n != 0 {
		t.Errorf("%d marks left", n)
	}
}

// A touch under one identifier credits an order found under another once an event proves they
// are one person.
func TestCreditsFollowLeadMerges(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now()
	phone := map[string]any{"phone": "+55 11 97777-0000"}
	e.event(map[string]any{"config": map[string]any{"name": "PageView"}, "lead": phone}, bearer(a.key)...)
	at := now.Add(-3 * 24 * time.Hour)
	e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "timestamp": at.Unix(),
		"lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	o := order("tx-1", "approved", 4200, now)
	delete(o, "utm")
	o["customer"] = phone
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	tx1 := facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(4200, 1050)}
	e.checkCredits(t, "before the merge", a.project.ID, tx1)
	e.event(map[string]any{"config": map[string]any{"name": "Contact"}, "lead": map[string]any{"email": "buyer@x.com",
		"phone": "+55 11 97777-0000"}}, bearer(a.key)...)
	e.drain()
	tx1.Touches = []facts.Touch{{Time: at.UTC(), Entity: seededAd(a)}}
	e.checkCredits(t, "after the merge", a.project.ID, tx1)
}

// A project on Lord Howe time (a 30-minute offset and a 30-minute DST shift) gets its credit
// rows at their local hour's start and local day, as facts_raw's.
func TestCreditsLocalHours(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	ctx := context.Background()
	if _, err := e.store.Pool().Exec(ctx, "UPDATE projects SET timezone = 'Australia/Lord_Howe' WHERE id = $1", a.project.ID); err != nil {
		t.Fatal(err)
	}
	e.clock.Set(time.Date(2026, 5, 10, 15, 0, 0, 0, time.UTC)) // standard time, UTC+10:30
	at := time.Date(2026, 4, 4, 14, 10, 0, 0, time.UTC)        // DST, UTC+11: 01:10 on 5 April
	e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "timestamp": at.Unix(),
		"lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	o := order("tx-1", "approved", 1000, e.clock.Now())
	o["created_at"] = "2026-05-10T12:00:00Z" // 22:30 local
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	rows, err := e.ch.Query(ctx, "SELECT DISTINCT by_click, ts, hour, day FROM credits_raw WHERE project_id = ? ORDER BY by_click, ts",
		a.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var byClick uint8
		var ts, hour, day time.Time
		if err := rows.Scan(&byClick, &ts, &hour, &day); err != nil {
			t.Fatal(err)
		}
		got = append(got, ts.UTC().Format(time.DateTime)+" "+hour.UTC().Format(time.DateTime)+" "+day.Format(time.DateOnly))
	}
	// The order's rows (both dates' unattributed ones too) at 11:30 UTC, the touch's at 14:00 UTC,
	// the start of 01:00 local.
	want := []string{"2026-05-10 12:00:00 2026-05-10 11:30:00 2026-05-10", "2026-04-04 14:10:00 2026-04-04 14:00:00 2026-04-05",
		"2026-05-10 12:00:00 2026-05-10 11:30:00 2026-05-10"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("credit rows at\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var factHour time.Time
	if err := e.ch.QueryRow(ctx, "SELECT any(hour) FROM facts_raw WHERE project_id = ? AND ts = ?", a.project.ID,
		time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)).Scan(&factHour); err != nil || !factHour.Equal(time.Date(2026, 5, 10, 11, 30, 0, 0, time.UTC)) {
		t.Errorf("facts_raw's hour %v (%v)", factHour, err)
	}
}

// A deployment's orders and journeys stored before credits (journeys in the journeys table, no
// marks, no credits) are credited once the migration's marks are set and the worker copies the
// journeys into journeys_by_lead.
func TestCreditsBackfill(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now()
	at := now.Add(-2 * 24 * time.Hour)
	e.event(map[string]any{"config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "timestamp": at.Unix(),
		"lead": map[string]any{"email": "buyer@x.com"}}, bearer(a.key)...)
	if r := e.webhook(a.custom.WebhookKey, order("tx-1", "approved", 4000, now)); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	o := order("tx-2", "approved", 900, now)
	delete(o, "customer")
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	// As before credits: the journeys in the old table, nothing credited, no marks.
	ctx := context.Background()
	for _, q := range []string{"INSERT INTO journeys SELECT * FROM journeys_by_lead", "TRUNCATE TABLE journeys_by_lead",
		"TRUNCATE TABLE credits_raw"} {
		if err := e.ch.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.store.Pool().Exec(ctx, "TRUNCATE credit_dirty, order_credits, journeys_copied"); err != nil {
		t.Fatal(err)
	}
	migration, err := os.ReadFile("../schema/postgres/0020_credits.sql")
	if err != nil {
		t.Fatal(err)
	}
	_, marks, _ := strings.Cut(string(migration), "-- Backfill:")
	if _, err := e.store.Pool().Exec(ctx, "-- "+marks); err != nil {
		t.Fatal(err)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM credit_dirty"); n != 2 {
		t.Fatalf("%d marks, want the buyer's and the lead-less order's", n)
	}
	e.drain()
	e.drain() // a second run copies nothing again
	e.checkCredits(t, "backfill", a.project.ID,
		facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(4000, 1000), Touches: []facts.Touch{{Time: at.UTC(), Entity: seededAd(a)}}},
		facts.OrderJourney{Time: orderCreated, Currency: "BRL", Values: approved(900, 225)})
	var n uint64
	if err := e.ch.QueryRow(ctx, "SELECT count() FROM journeys_by_lead WHERE project_id = ?", a.project.ID).Scan(&n); err != nil || n != 3 {
		t.Errorf("journeys_by_lead holds %d rows (%v), want the touch and the two orders once", n, err)
	}
}
