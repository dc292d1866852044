package api_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/internal/config"
)

// The campaigns of the views' journeys: A alone; B and C two ad sets of one campaign, so that
// levels group differently.
var (
	viewsA = seededCampaign{"930", "Autumn", "931", "Wide", "932", "Reel A"}
	viewsB = seededCampaign{"940", "Winter", "941", "Lookalike", "942", "Reel B"}
	viewsC = seededCampaign{"940", "Winter", "943", "Retarget", "944", "Reel C"}
)

// viewsJourneys writes, through the event and order endpoints as production receives them,
// journeys that every view and model must count alike: touches on several ads, an order with
// its own UTM, orders with no touch or a UTM that names no ad (unattributed), an e-mail touch
// before an ad touch, a sale refunded by a later webhook of the same id, a person with two
// orders and three touches (linear thirds), and a touch 36 days before its order. It returns the
// orders' approved revenue (cents) and the unattributed part of it.
func (e *env) viewsJourneys(t *testing.T, tn trackingTenant) (total, unattributed int64) {
	t.Helper()
	e.seedCampaigns(tn, viewsA, viewsB, viewsC)
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	touch := func(email string, at time.Time, utm map[string]string) {
		t.Helper()
		if r := e.event(map[string]any{"config": map[string]any{"name": "PageView"}, "utm": utm, "timestamp": at.Unix(),
			"lead": map[string]any{"email": email}}, bearer(tn.key)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	sell := func(id, email, status string, cents int64, created time.Time, utm map[string]string) {
		t.Helper()
		o := map[string]any{"id": id, "status": status, "value": cents, "currency": "BRL", "product_cost": cents / 3,
			"created_at": created.Format(time.RFC3339), "updated_at": e.clock.Now().Format(time.RFC3339),
			"customer": map[string]any{"email": email}}
		if utm != nil {
			o["utm"] = utm
		}
		if r := e.webhook(tn.custom.WebhookKey, o); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if status == "approved" {
			total += cents
		}
	}
	touch("p1@x.com", day(1, 10), viewsA.utm())
	touch("p1@x.com", day(3, 10), viewsB.utm())
	sell("o1", "p1@x.com", "approved", 10000, day(4, 12), nil)
	touch("p2@x.com", day(2, 9), viewsB.utm())
	sell("o2", "p2@x.com", "approved", 3333, day(5, 13), viewsA.utm())
	sell("o3", "p3@x.com", "approved", 5000, day(6, 14), nil)
	sell("o4", "p4@x.com", "approved", 2000, day(6, 15), map[string]string{"utm_source": "newsletter"})
	unattributed = 5000 + 2000
	touch("p5@x.com", day(2, 8), map[string]string{"utm_source": "email", "utm_medium": "crm"})
	touch("p5@x.com", day(7, 10), viewsA.utm())
	sell("o5", "p5@x.com", "approved", 7777, day(8, 11), nil)
	e.clock.Advance(time.Minute)
	sell("o5", "p5@x.com", "refunded", 7777, day(8, 11), nil)
	total -= 7777
	touch("p6@x.com", day(6, 10), viewsA.utm())
	touch("p6@x.com", day(7, 10), viewsB.utm())
	touch("p6@x.com", day(8, 10), viewsC.utm())
	sell("o6", "p6@x.com", "approved", 1001, day(9, 9), nil)
	sell("o7", "p6@x.com", "approved", 1001, day(9, 10), nil)
	touch("p7@x.com", day(1, 10).AddDate(0, 0, -36), viewsC.utm())
	sell("o8", "p7@x.com", "approved", 4000, day(7, 12), nil)
	e.drain()
	e.drain()
	return total, unattributed
}

// viewsSums are an answer's view and, per field, the sum of its rows (exact decimals), with the
// number of rows.
func (e *env) viewsSums(t *testing.T, key string, body map[string]any, fields []string) (string, map[string]decimal.Decimal, int) {
	t.Helper()
	r := e.do("POST", "/v3/query", body, bearer(key)...)
	if r.Status != 200 {
		t.Fatalf("%v: %d %s", body, r.Status, r.Body)
	}
	var ans struct {
		View string                       `json:"view"`
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &ans); err != nil {
		t.Fatal(err)
	}
	sums := map[string]decimal.Decimal{}
	for _, row := range ans.Data {
		for _, f := range fields {
			if v, err := decimal.NewFromString(string(row[f])); err == nil { // null: nothing to add
				sums[f] = sums[f].Add(v)
			}
		}
	}
	return ans.View, sums, len(ans.Data)
}

// Conservation (CONTRACT "Query: views"): under every model, window, date and granularity, the ad
// view's total is the sum of its rows at every level, to the cent (counts within the rounding of
// each row to 4 decimals); by conversion date over a window that holds every touch it is the
// orders' revenue less the unattributed orders; the traffic view's total is the orders' revenue
// whatever the model. Every answer names its view.
func TestViewsConserveTotals(t *testing.T) {
	e := newEnv(t)
	e.cfg.RateLimits = config.Off // hundreds of queries from one key
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	total, unattributed := e.viewsJourneys(t, a)
	fields := []string{"tx_revenue", "tx_count", "tx_count_total", "tx_product_costs", "profit"}
	span := map[string]any{"start": "2026-03-01", "end": "2026-03-10"}
	query := func(gran, level string, attribution map[string]any) map[string]any {
		tm := map[string]any{"start": span["start"], "end": span["end"]}
		if gran != "" {
			tm["granularity"] = gran
		}
		meta := map[string]any{"attribution": attribution}
		if level != "" {
			meta["level"] = level
		}
		return map[string]any{"project_id": a.project.ID, "fields": fields, "time": tm, "metadata": meta, "limit": 50000}
	}
	cents := func(c int64) decimal.Decimal { return decimal.New(c, -2) }
	for _, model := range engine.Models {
		for _, date := range engine.AttributionDates {
			for _, window := range []int{1, 7, 28, 90} {
				attr := map[string]any{"model": model, "date": date, "window_days": window}
				for _, gran := range []string{"", "day", "week", "hour"} {
					view, want, _ := e.viewsSums(t, a.readKey, query(gran, "", attr), fields)
					if view != engine.ViewAds {
						t.Fatalf("%v %s: view %q, want ads", attr, gran, view)
					}
					if gran == "" && date == engine.DateConversion && window == 90 && !want["tx_revenue"].Equal(cents(total-unattributed)) {
						t.Errorf("%v: ad-view total %s, want the orders' %s less the unattributed %s", attr, want["tx_revenue"],
							cents(total), cents(unattributed))
					}
					for _, level := range []string{"campaign", "adset", "ad"} {
						name := fmt.Sprintf("%v %s by %s", attr, gran, level)
						_, got, n := e.viewsSums(t, a.readKey, query(gran, level, attr), fields)
						for _, f := range fields {
							tolerance := decimal.Zero // money adds up to the cent
							if f == "tx_count" || f == "tx_count_total" {
								tolerance = decimal.New(int64(n), -4).Div(decimal.NewFromInt(2))
							}
							if got[f].Sub(want[f]).Abs().GreaterThan(tolerance) {
								t.Errorf("%s: rows sum %s to %s, total %s", name, f, got[f], want[f])
							}
						}
					}
				}
			}
		}
		// The traffic view counts every order, whatever the model (TestChannelsConserveTotals
		// checks its rows by every touch dimension).
		body := map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"}, "time": span,
			"metadata": map[string]any{"dimensions": []string{}, "attribution": map[string]any{"model": model}}}
		view, got, _ := e.viewsSums(t, a.readKey, body, []string{"tx_revenue"})
		if view != engine.ViewTraffic || !got["tx_revenue"].Equal(cents(total)) {
			t.Errorf("%s: traffic view %q total %s, want traffic %s", model, view, got["tx_revenue"], cents(total))
		}
	}
}

// reported never credits a touch made after the order (CONTRACT "Query: views"): the buyer
// touches A, buys without a UTM, touches B, and only then does the order's webhook arrive. The
// order is A's under reported (it used to take the lead's latest UTM, B's), as under last_click;
// a second order after B's touch is B's.
func TestReportedNeverCreditsALaterTouch(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedCampaigns(a, viewsA, viewsB)
	day := func(d int) time.Time { return time.Date(2026, 3, d, 12, 0, 0, 0, time.UTC) }
	touch := func(at time.Time, c seededCampaign) {
		t.Helper()
		if r := e.event(map[string]any{"config": map[string]any{"name": "PageView"}, "utm": c.utm(), "timestamp": at.Unix(),
			"lead": map[string]any{"email": "late@x.com"}}, bearer(a.key)...); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	sell := func(id string, cents int64, created time.Time) {
		t.Helper()
		if r := e.webhook(a.custom.WebhookKey, map[string]any{"id": id, "status": "approved", "value": cents, "currency": "BRL",
			"created_at": created.Format(time.RFC3339), "updated_at": e.clock.Now().Format(time.RFC3339),
			"customer": map[string]any{"email": "late@x.com"}}); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	touch(day(2), viewsA)
	touch(day(6), viewsB)
	sell("before-b", 10000, day(5))
	sell("after-b", 2500, day(7))
	e.drain()
	e.drain()
	for _, model := range []string{engine.ModelReported, "last_click"} {
		r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue", "tx_count"},
			"time": map[string]any{"start": "2026-03-01", "end": "2026-03-10"}, "metadata": map[string]any{"level": "campaign",
				"attribution": map[string]any{"model": model}}, "order": map[string]any{"campaign_id": "asc"}}, bearer(a.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", model, r.Status, r.Body)
		}
		wantJSON(t, r.JSON(t)["data"], `[{"campaign_id":"930","campaign_name":"Autumn","source":"alpha_ads","tx_count":1,"tx_revenue":100},`+
			`{"campaign_id":"940","campaign_name":"Winter","source":"alpha_ads","tx_count":1,"tx_revenue":25}]`)
	}
}
