package api_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/facts"
	"mtk/internal/config"
)

// channelsJourneys adds to viewsJourneys, through the same routes, the touches of every channel
// (CONTRACT "Query: views, cross-channel attribution and identity"): a buyer who opens an e-mail,
// then clicks ad A, then buys (o9, 90.00); one who comes from a WhatsApp link and buys (o10,
// 12.34); one from an organic search (referrer google.com, no UTM) who buys on a tablet (o11,
// 56.78); and an internal navigation (the shop's own referrer) that is no touch. It returns the
// orders' approved revenue (cents), viewsJourneys' included.
func (e *env) channelsJourneys(t *testing.T, tn trackingTenant) int64 {
	t.Helper()
	total, _ := e.viewsJourneys(t, tn)
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	touch := func(email string, at time.Time, utm map[string]string, page map[string]any) {
		t.Helper()
		e.pageViewTouch(t, tn.key, email, at, utm, page)
	}
	sell := func(id, email string, cents int64, created time.Time) {
		t.Helper()
		if r := e.webhook(tn.custom.WebhookKey, map[string]any{"id": id, "status": "approved", "value": cents, "currency": "BRL",
			"product_cost": cents / 3, "created_at": created.Format(time.RFC3339), "updated_at": e.clock.Now().Format(time.RFC3339),
			"customer": map[string]any{"email": email}}); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		total += cents
	}
	shop := map[string]any{"url": "https://acme.example/sale"}
	touch("p8@x.com", day(3, 9), map[string]string{"utm_source": "newsletter", "utm_medium": "email"}, shop)
	touch("p8@x.com", day(4, 9), viewsA.utm(), shop)
	touch("p8@x.com", day(4, 10), nil, map[string]any{"url": "https://acme.example/cart", "referrer": "https://acme.example/sale"})
	sell("o9", "p8@x.com", 9000, day(4, 11))
	touch("p9@x.com", day(5, 9), map[string]string{"utm_source": "whatsapp", "utm_medium": "chat"}, shop)
	sell("o10", "p9@x.com", 1234, day(5, 10))
	touch("p10@x.com", day(6, 9), nil, map[string]any{"url": "https://acme.example/", "referrer": "https://www.google.com/"})
	sell("o11", "p10@x.com", 5678, day(6, 10))
	e.drain()
	e.drain()
	return total
}

// Conservation across channels: under every model, touch set, window, date and granularity, the
// traffic view's total is every order's revenue (by conversion date; by click date, the sum of its
// rows) and its rows by any touch dimension, the null row included, add up to it; the ad view's
// total is the sum of its rows at every level with either touch set.
func TestChannelsConserveTotals(t *testing.T) {
	e := newEnv(t)
	e.cfg.RateLimits = config.Off // thousands of queries from one key
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	total := e.channelsJourneys(t, a)
	fields := []string{"tx_revenue", "tx_count", "tx_count_total", "tx_product_costs"}
	query := func(gran string, meta map[string]any) map[string]any {
		tm := map[string]any{"start": "2026-03-01", "end": "2026-03-10"}
		if gran != "" {
			tm["granularity"] = gran
		}
		return map[string]any{"project_id": a.project.ID, "fields": fields, "time": tm, "metadata": meta, "limit": 50000}
	}
	same := func(name string, got, want map[string]decimal.Decimal, rows int) {
		t.Helper()
		for _, f := range fields {
			tolerance := decimal.Zero // money adds up to the cent
			if f == "tx_count" || f == "tx_count_total" {
				tolerance = decimal.New(int64(rows), -4).Div(decimal.NewFromInt(2))
			}
			if got[f].Sub(want[f]).Abs().GreaterThan(tolerance) {
				t.Errorf("%s: rows sum %s to %s, total %s", name, f, got[f], want[f])
			}
		}
	}
	for _, model := range engine.Models {
		for _, date := range engine.AttributionDates {
			for _, window := range []int{1, 7, 28, 90} {
				for _, touches := range facts.TouchSets {
					attr := map[string]any{"model": model, "date": date, "window_days": window, "touches": touches}
					for _, gran := range []string{"", "day", "hour"} {
						if model != engine.ModelReported || touches == facts.TouchesAll {
							view, want, _ := e.viewsSums(t, a.readKey, query(gran, map[string]any{"dimensions": []string{}, "attribution": attr}), fields)
							if view != engine.ViewTraffic {
								t.Fatalf("%v %s: view %q, want traffic", attr, gran, view)
							}
							if date == engine.DateConversion && !want["tx_revenue"].Equal(decimal.New(total, -2)) {
								t.Errorf("%v %s: traffic total %s, want every order's %s", attr, gran, want["tx_revenue"], decimal.New(total, -2))
							}
							for _, dims := range [][]string{{"utm_source"}, {"utm_medium", "device"}, {"referrer_host"}} {
								meta := map[string]any{"dimensions": dims, "attribution": attr}
								_, got, n := e.viewsSums(t, a.readKey, query(gran, meta), fields)
								same(fmt.Sprintf("%v %s by %v", attr, gran, dims), got, want, n)
							}
						}
						if model == engine.ModelReported && touches == facts.TouchesAll {
							continue // refused: reported counts the ad view's touches
						}
						_, want, _ := e.viewsSums(t, a.readKey, query(gran, map[string]any{"attribution": attr}), fields)
						for _, level := range []string{"campaign", "ad"} {
							_, got, n := e.viewsSums(t, a.readKey, query(gran, map[string]any{"level": level, "attribution": attr}), fields)
							same(fmt.Sprintf("%v %s by %s", attr, gran, level), got, want, n)
						}
					}
				}
			}
		}
	}
}

// The journey, e-mail then ad then order, by utm_source: first click credits the e-mail
// fully among every touch and the ad among ad touches; linear halves it among every touch; the
// ad view with every touch credits the ad with its half only. Orders with no touch and the
// WhatsApp and organic buyers keep their rows; the null row holds what no touch earned.
func TestChannelsEmailThenAdThenOrder(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedCampaigns(a, viewsA)
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	touch := func(email string, at time.Time, utm map[string]string, page map[string]any) {
		t.Helper()
		e.pageViewTouch(t, a.key, email, at, utm, page)
	}
	sell := func(id, email string, cents int64, created time.Time) {
		t.Helper()
		if r := e.webhook(a.custom.WebhookKey, map[string]any{"id": id, "status": "approved", "value": cents, "currency": "BRL",
			"created_at": created.Format(time.RFC3339), "updated_at": e.clock.Now().Format(time.RFC3339),
			"customer": map[string]any{"email": email}}); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	shop := map[string]any{"url": "https://acme.example/sale"}
	touch("buyer@x.com", day(3, 9), map[string]string{"utm_source": "email", "utm_medium": "crm"}, shop)
	touch("buyer@x.com", day(4, 9), viewsA.utm(), shop)
	sell("o1", "buyer@x.com", 10000, day(4, 12))
	touch("wa@x.com", day(5, 9), map[string]string{"utm_source": "whatsapp"}, shop)
	sell("o2", "wa@x.com", 2000, day(5, 10))
	touch("seo@x.com", day(6, 9), nil, map[string]any{"url": "https://acme.example/", "referrer": "https://www.google.com/"})
	sell("o3", "seo@x.com", 3000, day(6, 10))
	sell("o4", "none@x.com", 4000, day(7, 10))
	e.drain()
	e.drain()
	span := map[string]any{"start": "2026-03-01", "end": "2026-03-10"}
	ask := func(meta map[string]any, extra ...map[string]any) any {
		t.Helper()
		body := map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue", "tx_count"}, "time": span, "metadata": meta}
		if dims, _ := meta["dimensions"].([]string); len(dims) > 0 {
			body["order"] = map[string]any{dims[0]: "asc"}
		}
		for _, x := range extra {
			for k, v := range x {
				body[k] = v
			}
		}
		r := e.do("POST", "/v3/query", body, bearer(a.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%v: %d %s", meta, r.Status, r.Body)
		}
		return r.JSON(t)["data"]
	}
	for _, c := range []struct {
		model, touches, want string
	}{
		// The null row sorts first: the organic buyer (no utm_source) and the order with no touch.
		{"first_click", "all", `[{"tx_count":2,"tx_revenue":70,"utm_source":null},{"tx_count":1,"tx_revenue":100,"utm_source":"email"},` +
			`{"tx_count":1,"tx_revenue":20,"utm_source":"whatsapp"}]`},
		{"first_click", "ads", `[{"tx_count":3,"tx_revenue":90,"utm_source":null},{"tx_count":1,"tx_revenue":100,"utm_source":"alpha"}]`},
		{"linear", "all", `[{"tx_count":2,"tx_revenue":70,"utm_source":null},{"tx_count":0.5,"tx_revenue":50,"utm_source":"alpha"},` +
			`{"tx_count":0.5,"tx_revenue":50,"utm_source":"email"},{"tx_count":1,"tx_revenue":20,"utm_source":"whatsapp"}]`},
		{"linear", "ads", `[{"tx_count":3,"tx_revenue":90,"utm_source":null},{"tx_count":1,"tx_revenue":100,"utm_source":"alpha"}]`},
	} {
		meta := map[string]any{"dimensions": []string{"utm_source"}, "attribution": map[string]any{"model": c.model, "touches": c.touches}}
		wantJSON(t, ask(meta), c.want)
	}
	// Event metrics keep their own event's dimensions beside the credits (the per-dimension rollup
	// and the credits read together).
	wantJSON(t, ask(map[string]any{"dimensions": []string{"utm_source"}, "attribution": map[string]any{"model": "linear"}},
		map[string]any{"fields": []string{"page_views", "tx_revenue"}}),
		`[{"page_views":1,"tx_revenue":70,"utm_source":null},{"page_views":1,"tx_revenue":50,"utm_source":"alpha"},`+
			`{"page_views":1,"tx_revenue":50,"utm_source":"email"},{"page_views":1,"tx_revenue":20,"utm_source":"whatsapp"}]`)
	wantJSON(t, ask(map[string]any{"dimensions": []string{"utm_source", "utm_medium"}, "attribution": map[string]any{"model": "linear"}},
		map[string]any{"fields": []string{"page_views", "tx_revenue"}}),
		`[{"page_views":1,"tx_revenue":70,"utm_medium":null,"utm_source":null},`+
			`{"page_views":1,"tx_revenue":50,"utm_medium":"Wide|931","utm_source":"alpha"},`+
			`{"page_views":1,"tx_revenue":50,"utm_medium":"crm","utm_source":"email"},`+
			`{"page_views":1,"tx_revenue":20,"utm_medium":null,"utm_source":"whatsapp"}]`)
	// By referrer: the organic buyer's order is google's under every crediting model.
	wantJSON(t, ask(map[string]any{"dimensions": []string{"referrer_host"}, "attribution": map[string]any{"model": "time_decay"}}),
		`[{"referrer_host":null,"tx_count":3,"tx_revenue":160},{"referrer_host":"www.google.com","tx_count":1,"tx_revenue":30}]`)
	// The ad view: the ad's whole order among ad touches, its half among every touch.
	for touches, want := range map[string]string{"ads": `[{"tx_count":1,"tx_revenue":100}]`, "all": `[{"tx_count":0.5,"tx_revenue":50}]`} {
		wantJSON(t, ask(map[string]any{"attribution": map[string]any{"model": "linear", "touches": touches}}), want)
	}
	// A filter on a touch dimension keeps the credits of matching touches.
	wantJSON(t, ask(map[string]any{"dimensions": []string{}, "attribution": map[string]any{"model": "linear"}},
		map[string]any{"filters": []map[string]any{{"member": "utm_source", "operator": "equals", "values": []string{"email"}}}}),
		`[{"tx_count":0.5,"tx_revenue":50}]`)
	// Explain names the touch set; a model refuses an order's own dimension.
	r := e.do("POST", "/v3/query/explain", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"}, "time": span,
		"metadata": map[string]any{"dimensions": []string{"utm_source"}, "attribution": map[string]any{"model": "linear"}}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["attribution"], `{"date":"conversion","model":"linear","table":"credits_traffic_daily","touches":"all","window_days":28}`)
	r = e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"},
		"metadata": map[string]any{"dimensions": []string{"utm_source", "payment_method"}, "attribution": map[string]any{"model": "linear"}}},
		bearer(a.readKey)...)
	wantJSON(t, wantError(t, r, 400, "validation_error", "invalid_parameter")["details"],
		`["metadata.dimensions[1]: dimension \"payment_method\" is an order's, and models credit touches `+
			`(utm_*, referrer_host, landing_path, device): ask it with the reported model"]`)
}

// pageViewTouch sends a page view of the lead named by email at at, with utm (nil: none) on page,
// through the tracking route with tracking key key.
func (e *env) pageViewTouch(t *testing.T, key, email string, at time.Time, utm map[string]string, page map[string]any) {
	t.Helper()
	body := map[string]any{"config": map[string]any{"name": "PageView"}, "timestamp": at.Unix(),
		"lead": map[string]any{"email": email}, "page": page}
	if utm != nil {
		body["utm"] = utm
	}
	if r := e.event(body, bearer(key)...); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}
