package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"mtk/client"
)

// The campaigns a buyer's lead touched before the sale: first c1, then c2; the order's own UTM
// names c0 (the reported attribution's pick).
const (
	firstTouched = alphaAccount + "_c1"
	lastTouched  = alphaAccount + "_c2"
)

// The Performance view's attribution at 1280 and 390 pixels: the models GET /v3/fields lists, a
// window and "By click date" are sent as metadata.attribution on the view's queries, and every
// value shown is what POST /v3/query answers for those bodies; an order whose lead touched two
// campaigns moves between them with the model, the window and the date. The choice is kept
// across views and a reload; the Sources and Products views turn it off and say why.
func TestDashboardAttribution(t *testing.T) {
	f := startServer(t)
	f.seedJourney()
	models := f.attributionModels()
	for _, width := range []int64{1280, 390} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			tb := newTab(t, width, 900)
			shots := screenshotDir(t)
			tb.signInWithKey(f)
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="30d"]`)))
			tb.act("ready", choose("#granularity", "day"))
			tb.act("ready", choose("#level", "campaign"))

			offered := eval[[]string](tb, `[...document.querySelectorAll('#model option')].map((o) => o.value)`)
			windows := eval[[]string](tb, `[...document.querySelectorAll('#window option')].map((o) => o.value)`)
			if !slices.Equal(offered, models) || !slices.Equal(windows, []string{"1", "7", "28", "90"}) {
				t.Fatalf("models offered %v (the API's %v), windows %v", offered, models, windows)
			}
			// Reported, the default: no metadata.attribution; a window and a date do not apply.
			tb.checkAttributionControls("reported", "28", false, "window", "click-date")
			tb.checkAttribution(f, nil)

			for _, c := range []struct {
				control, value string
				want           map[string]any
				first, last    string // the campaigns' revenue
			}{
				{"#model", "last_click", map[string]any{"model": "last_click", "window_days": 28, "date": "conversion"}, "0", "300"},
				{"#model", "first_click", map[string]any{"model": "first_click", "window_days": 28, "date": "conversion"}, "300", "0"},
				{"#model", "linear", map[string]any{"model": "linear", "window_days": 28, "date": "conversion"}, "150", "150"},
				// The first touch was 9 days before the sale.
				{"#window", "7", map[string]any{"model": "linear", "window_days": 7, "date": "conversion"}, "0", "300"},
				{"#window", "28", map[string]any{"model": "linear", "window_days": 28, "date": "conversion"}, "150", "150"},
			} {
				tb.act("ready", choose(c.control, c.value))
				tb.checkAttribution(f, c.want)
				tb.checkCampaignRevenue(c.first, c.last)
			}

			// Over the last 7 days by click date, the first touch's half (10 days ago) falls out of
			// the range; by the sale's date it is in.
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="7d"]`)))
			tb.checkAttribution(f, map[string]any{"model": "linear", "window_days": 28, "date": "conversion"})
			tb.checkCampaignRevenue("150", "150")
			tb.act("ready", chromedp.Click(chromedp.ID("click-date")))
			tb.checkAttributionControls("linear", "28", true)
			tb.checkAttribution(f, map[string]any{"model": "linear", "window_days": 28, "date": "click"})
			tb.checkCampaignRevenue("0", "150")
			if sub := tb.text("#subtitle"); !strings.HasSuffix(sub, " · Linear, 28-day window, by click date") {
				t.Fatalf("subtitle %q", sub)
			}
			tb.checkFits()
			tb.screenshot(shots, fmt.Sprintf("attribution-%dpx.png", width))

			// Sources and Products break down by dimensions, which keep the reported attribution:
			// the controls are off, saying why, and their bodies carry none.
			for _, page := range []string{"sources", "products"} {
				tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="`+page+`"]`)))
				tb.checkAttributionControls("linear", "28", true, "model", "window", "click-date")
				for _, name := range []string{"breakdown", "trend"} {
					if body := tb.requestBody(name); strings.Contains(body, "attribution") {
						t.Fatalf("the %s view's %s body %s", page, name, body)
					}
				}
				tb.checkFits()
			}
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="performance"]`)))
			tb.checkAttribution(f, map[string]any{"model": "linear", "window_days": 28, "date": "click"})

			// A reload keeps the choice, as it keeps the other controls'.
			tb.Run(chromedp.Navigate(f.url + "/dashboard"))
			tb.waitLoaded(-1, "ready")
			tb.checkAttributionControls("linear", "28", true)
			tb.checkAttribution(f, map[string]any{"model": "linear", "window_days": 28, "date": "click"})

			tb.act("ready", choose("#model", "reported"))
			tb.checkAttributionControls("reported", "28", true, "window", "click-date")
			tb.checkAttribution(f, nil)
			tb.checkFits()
			if errs := tb.Errors(); len(errs) > 0 {
				t.Fatalf("the page logged errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// seedJourney sends a buyer's journey through the public API: a lead from a click on an ad of
// campaign c1 ten days ago, a visit from an ad of c2 three days ago, and yesterday an order of
// R$300.00 whose own UTM names an ad of c0; then drains it into ClickHouse.
func (f *fixture) seedJourney() {
	f.t.Helper()
	const email = "journey@shop.test"
	now := time.Now()
	utm := func(campaign string) string {
		return "utm_source=alpha&utm_campaign=Sale%7C" + campaign + "&utm_medium=Broad%7C" + campaign + "_s0&utm_content=Video%7C" + campaign + "_s0_a0"
	}
	for i, touch := range []struct {
		name, campaign string
		ago            time.Duration
	}{{"Lead", firstTouched, 10 * 24 * time.Hour}, {"PageView", lastTouched, 3 * 24 * time.Hour}} {
		f.post("/v3/tracking/events", "", map[string]any{"domain": f.domain, "event_id": fmt.Sprintf("journey-%d", i),
			"config": map[string]any{"name": touch.name}, "timestamp": now.Add(-touch.ago).Unix(),
			"page": map[string]any{"url": "https://acme.example/shoes?" + utm(touch.campaign)}, "lead": map[string]any{"email": email}})
	}
	at := now.Add(-24 * time.Hour).UTC().Format(time.RFC3339)
	f.post(f.webhook, "", map[string]any{"transaction": map[string]any{
		"id": "journey-order", "status": "approved", "value": 30_000, "currency": "BRL", "created_at": at, "updated_at": at,
		"customer": map[string]string{"email": email},
		"utm": map[string]string{"utm_source": "alpha", "utm_campaign": "Sale|" + alphaAccount + "_c0",
			"utm_medium": "Broad|" + alphaAccount + "_c0_s0", "utm_content": "Video|" + orderedAd},
	}})
	f.drain()
}

// attributionModels are the models GET /v3/fields lists.
func (f *fixture) attributionModels() []string {
	f.t.Helper()
	c := client.New(f.url, client.WithAPIKey(f.key), client.WithMaxRetries(0))
	out, err := c.RawRequest(context.Background(), "GET", "/v3/fields", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	var fields struct{ Attribution struct{ Models []string } }
	if err := json.Unmarshal(out, &fields); err != nil || len(fields.Attribution.Models) < 2 {
		f.t.Fatalf("GET /v3/fields: %v %s", err, out)
	}
	return fields.Attribution.Models
}

// checkAttributionControls checks the controls' values and that exactly the controls named in
// off are disabled, each with the reason in its field's title.
func (tb *tab) checkAttributionControls(model, window string, clickDate bool, off ...string) {
	tb.T.Helper()
	type control struct {
		Value    string
		Checked  bool
		Disabled bool
		Title    string
	}
	got := eval[map[string]control](tb, `Object.fromEntries(['model', 'window', 'click-date'].map((id) => { const e = document.getElementById(id);
		return [id, {value: e.value, checked: e.checked, disabled: e.disabled, title: e.closest('.field').title}]; }))`)
	if got["model"].Value != model || got["window"].Value != window || got["click-date"].Checked != clickDate {
		tb.T.Fatalf("attribution controls %+v, want %s, %s days, by click date %v", got, model, window, clickDate)
	}
	for id, c := range got {
		if c.Disabled != slices.Contains(off, id) || (c.Title != "") != c.Disabled {
			tb.T.Fatalf("%s: disabled %v with title %q; want off: %v", id, c.Disabled, c.Title, off)
		}
	}
}

// checkAttribution checks that the view's three queries carry want as metadata.attribution (none
// when want is nil) and that the page shows what the API answers for them (checkView).
func (tb *tab) checkAttribution(f *fixture, want map[string]any) {
	tb.T.Helper()
	wantJSON, _ := json.Marshal(want)
	for _, name := range []string{"series", "totals", "table"} {
		var body struct {
			Metadata struct {
				Attribution json.RawMessage `json:"attribution"`
			}
		}
		text := tb.requestBody(name)
		if err := json.Unmarshal([]byte(text), &body); err != nil {
			tb.T.Fatal(err)
		}
		var got map[string]any
		if len(body.Metadata.Attribution) > 0 {
			if err := json.Unmarshal(body.Metadata.Attribution, &got); err != nil {
				tb.T.Fatal(err)
			}
		}
		gotJSON, _ := json.Marshal(got)
		if string(gotJSON) != string(wantJSON) {
			tb.T.Fatalf("the %s body %s; want metadata.attribution %s", name, text, wantJSON)
		}
	}
	tb.checkView(f)
}

// checkCampaignRevenue checks the revenue the table shows on the journey's first and last touched
// campaigns (a campaign without a row has none).
func (tb *tab) checkCampaignRevenue(first, last string) {
	tb.T.Helper()
	shown := map[string]decimal.Decimal{}
	for _, r := range tb.tableRows() {
		if v := r["tx_revenue"]; v != "null" {
			shown[r["key"]] = decimal.RequireFromString(v)
		}
	}
	for campaign, want := range map[string]string{firstTouched: first, lastTouched: last} {
		if got := shown["alpha_ads|"+campaign]; !got.Equal(decimal.RequireFromString(want)) {
			tb.T.Fatalf("campaign %s shows revenue %s, want %s (rows %v)", campaign, got, want, shown)
		}
	}
}
