package dashboard_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"
)

// The dimensions the Sources view offers, in its selector's order.
var sourceDimensions = []string{"utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term",
	"referrer_host", "landing_path", "device", "payment_method", "customer_type"}

// The Sources and Products views at 1280 and 390 pixels over a shop's traffic: a table by each
// dimension (metadata.dimensions in POST /v3/query) whose rows, bars and sparklines are
// what the API answers for the page's own bodies, ordered by the chosen metric, under a total
// row (the traffic total, which they sum to); products with
// revenue, units, sales and costs; no sideways scrolling.
func TestDashboardSourcesAndProducts(t *testing.T) {
	f := startServer(t)
	f.seedShop()
	for _, width := range []int64{1280, 390} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			tb := newTab(t, width, 900)
			shots := screenshotDir(t)
			tb.signInWithKey(f)
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="7d"]`)))
			tb.act("ready", choose("#granularity", "day"))

			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="sources"]`)))
			if got := eval[[]string](tb, `[...document.querySelectorAll('#breakdown-dimension option')].map((o) => o.value)`); !slices.Equal(got, sourceDimensions) {
				t.Fatalf("dimensions offered %v", got)
			}
			tb.checkBreakdown(f, []string{"utm_source"}, "tx_revenue")
			names := eval[[]string](tb, `[...document.querySelectorAll('#breakdown-rows tbody .name')].map((e) => e.textContent)`)
			for _, want := range []string{"newsletter", "whatsapp", "(direct or not set)"} {
				if !slices.Contains(names, want) {
					t.Fatalf("utm_source rows %q lack %q", names, want)
				}
			}
			tb.checkFits()
			tb.screenshot(shots, fmt.Sprintf("sources-%dpx.png", width))
			tb.act("ready", choose("#breakdown-metric", "page_views"))
			tb.checkBreakdown(f, []string{"utm_source"}, "page_views")
			// Order dimensions show order metrics only (no page view has a payment method): the
			// bars fall back to revenue there.
			for _, d := range sourceDimensions[1:] {
				tb.act("ready", choose("#breakdown-dimension", d))
				metric, columns := "page_views", []string{"page_views", "leads", "initiate_checkout", "tx_count", "tx_revenue"}
				if d == "payment_method" || d == "customer_type" {
					metric, columns = "tx_revenue", []string{"tx_count", "tx_revenue"}
				}
				tb.checkBreakdown(f, []string{d}, metric)
				if got := eval[[]string](tb, `[...document.querySelectorAll('#breakdown-rows thead th.num')].map((h) => h.dataset.key)`); !slices.Equal(got, columns) {
					t.Fatalf("columns by %s: %v, want %v", d, got, columns)
				}
			}
			tb.act("ready", choose("#breakdown-metric", "tx_revenue"))
			tb.checkBreakdown(f, []string{"customer_type"}, "tx_revenue")

			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="products"]`)))
			tb.checkBreakdown(f, []string{"product_id", "product_name"}, "tx_revenue")
			names = eval[[]string](tb, `[...document.querySelectorAll('#breakdown-rows tbody .name')].map((e) => e.textContent)`)
			for _, want := range []string{"Running shoes", "Socks", "Orders without items"} {
				if !slices.Contains(names, want) {
					t.Fatalf("product rows %q lack %q", names, want)
				}
			}
			tb.act("ready", choose("#breakdown-metric", "tx_units"))
			tb.checkBreakdown(f, []string{"product_id", "product_name"}, "tx_units")
			tb.checkFits()
			tb.screenshot(shots, fmt.Sprintf("products-%dpx.png", width))

			// Back to the ad hierarchy, as it was left.
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="performance"]`)))
			tb.checkView(f)
			if errs := tb.Errors(); len(errs) > 0 {
				t.Fatalf("the page logged errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// seedShop sends what a shop's site and checkout send today: page views and a lead from
// browsers (UTM in the page's URL, referrers, real User-Agents) and orders with items, payment
// methods and a customer buying twice, one order pending; then drains them into ClickHouse.
func (f *fixture) seedShop() {
	f.t.Helper()
	const (
		desktop = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
		iphone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
	)
	now := time.Now()
	visits := []struct {
		name, url, referrer, userAgent string
		times                          int
	}{
		{"PageView", "https://acme.example/shoes?utm_source=newsletter&utm_medium=email&utm_campaign=spring&utm_content=hero", "https://mail.google.com/", desktop, 3},
		{"PageView", "https://acme.example/?utm_source=whatsapp&utm_medium=social&utm_term=sale", "", iphone, 2},
		{"PageView", "https://acme.example/socks#top", "https://www.google.com/", iphone, 2},
		{"Lead", "https://acme.example/shoes?utm_source=newsletter&utm_medium=email", "https://mail.google.com/", desktop, 1},
	}
	for i, v := range visits {
		for k := range v.times {
			body := map[string]any{"domain": f.domain, "event_id": fmt.Sprintf("visit-%d-%d", i, k), "config": map[string]any{"name": v.name},
				"timestamp": now.Add(-time.Duration(5*i+k+1) * time.Minute).Unix(), "page": map[string]any{"url": v.url, "referrer": v.referrer}}
			if v.name == "Lead" {
				body["lead"] = map[string]any{"email": "ana@shop.test"}
			}
			f.post("/v3/tracking/events", "", body, "User-Agent", v.userAgent)
		}
	}
	shoes := func(n int) map[string]any {
		return map[string]any{"id": "sku-shoes", "name": "Running shoes", "quantity": n, "unit_price": 19_990, "cost": 8_000 * n}
	}
	socks := func(n int) map[string]any {
		return map[string]any{"id": "sku-socks", "name": "Socks", "quantity": n, "unit_price": 1_990, "cost": 500 * n}
	}
	for i, o := range []struct {
		status, source, medium, customer, payment string
		items                                     []map[string]any
		cents                                     int
	}{
		{"approved", "newsletter", "email", "ana@shop.test", "pix", []map[string]any{shoes(2), socks(3)}, 45_950},
		{"approved", "whatsapp", "social", "ana@shop.test", "boleto", []map[string]any{shoes(1)}, 19_990},
		{"pending", "newsletter", "email", "bia@shop.test", "credit_card", []map[string]any{socks(1)}, 1_990},
	} {
		at := now.Add(-time.Duration(3-i) * time.Hour).UTC().Format(time.RFC3339)
		f.post(f.webhook, "", map[string]any{"transaction": map[string]any{
			"id": fmt.Sprintf("shop-%d", i), "status": o.status, "value": o.cents, "currency": "BRL", "created_at": at, "updated_at": at,
			"utm": map[string]string{"utm_source": o.source, "utm_medium": o.medium}, "customer": map[string]string{"email": o.customer},
			"items": o.items, "payment_method": o.payment,
		}})
	}
	f.drain()
}

// checkBreakdown checks the Sources or Products table against POST /v3/query with the page's
// own bodies: the rows keyed by dims in the API's order (by metric, descending), every cell, the
// bar's value, each sparkline's points (the trend answer's rows of that key), the row count and
// the warnings.
func (tb *tab) checkBreakdown(f *fixture, dims []string, metric string) {
	tb.T.Helper()
	t := tb.T
	body := tb.requestBody("breakdown")
	var asked struct {
		Fields   []string
		Order    map[string]string
		Metadata struct{ Dimensions []string }
	}
	if err := json.Unmarshal([]byte(body), &asked); err != nil {
		t.Fatal(err)
	}
	trendBody := tb.requestBody("trend")
	if !slices.Equal(asked.Metadata.Dimensions, dims) || len(asked.Order) != 1 || asked.Order[metric] != "desc" ||
		!strings.Contains(trendBody, `"fields":["`+metric+`"]`) || !strings.Contains(trendBody, `"granularity":"day"`) {
		t.Fatalf("the page asked %s and %s, want rows by %v ordered by %s", body, trendBody, dims, metric)
	}
	a := f.query(body)
	if a.Error != nil {
		t.Fatalf("the API refused the page's body %s: %s %q", body, a.Error.Message, a.Error.Details)
	}
	trend := f.query(trendBody)
	if trend.Error != nil {
		t.Fatalf("the API refused the page's body %s: %s %q", trendBody, trend.Error.Message, trend.Error.Details)
	}
	points := map[string][][2]string{}
	for _, row := range trend.Data {
		k := rowKey(row, dims)
		points[k] = append(points[k], [2]string{text(row["date"]), text(row[metric])})
	}

	shown := eval[[]struct {
		Key    string
		Cells  map[string]string
		Points string
	}](tb, `[...document.querySelectorAll('#breakdown-rows tbody tr')].map((tr) => ({key: tr.dataset.key,
		cells: Object.fromEntries([...tr.cells].filter((td) => td.dataset.value !== undefined).map((td) => [td.dataset.key, td.dataset.value])),
		points: (tr.querySelector('.sparkline') || {dataset: {}}).dataset.points || ''}))`)
	if len(shown) != len(a.Data) || len(a.Data) == 0 {
		t.Fatalf("the table has %d rows, the API %d for %s", len(shown), len(a.Data), body)
	}
	for i, row := range a.Data {
		for _, d := range dims {
			if _, ok := row[d]; !ok {
				t.Fatalf("the API's row %v lacks the dimension %s (does this engine support metadata.dimensions?)", row, d)
			}
		}
		s := shown[i]
		if want := rowKey(row, dims); s.Key != want {
			t.Fatalf("row %d is %s, the API's %s", i, s.Key, want)
		}
		if s.Cells["share"] != text(row[metric]) {
			t.Fatalf("row %s: bar of %s, API %s %s", s.Key, s.Cells["share"], metric, text(row[metric]))
		}
		for _, field := range asked.Fields {
			if s.Cells[field] != text(row[field]) {
				t.Fatalf("row %s: %s shows %s, API %s", s.Key, field, s.Cells[field], text(row[field]))
			}
		}
		var got [][]any
		if err := json.Unmarshal([]byte(s.Points), &got); err != nil {
			t.Fatalf("row %s: sparkline points %q", s.Key, s.Points)
		}
		want := points[s.Key]
		if len(got) != len(want) {
			t.Fatalf("row %s: sparkline of %d points, the API %d", s.Key, len(got), len(want))
		}
		for j, p := range got {
			if text(p[0]) != want[j][0] || text(p[1]) != want[j][1] {
				t.Fatalf("row %s: sparkline point %d %v, API %v", s.Key, j, p, want[j])
			}
		}
	}
	if note := tb.dataAttrs("#breakdown-note")[0]["total"]; a.TotalRows == nil || note != a.TotalRows.String() {
		t.Fatalf("the note counts %s rows, the API %v", note, a.TotalRows)
	}
	warnings := append(a.Warnings, trend.Warnings...)
	// The Sources view's total row is the traffic total ("dimensions": []), which its rows sum
	// to per field, to the cent; products' sales can overlap, so that view has none.
	foot := eval[map[string]string](tb, `Object.fromEntries([...document.querySelectorAll('#breakdown-rows tfoot td')]
		.filter((td) => td.dataset.value !== undefined).map((td) => [td.dataset.key, td.dataset.value]))`)
	if slices.Contains(dims, "product_id") {
		if len(foot) > 0 {
			t.Fatalf("the Products view shows a total row %v", foot)
		}
	} else {
		totalBody := tb.requestBody("total")
		total := f.query(totalBody)
		if !strings.Contains(totalBody, `"dimensions":[]`) || total.Error != nil || len(total.Data) != 1 {
			t.Fatalf("the total's body %s: %+v", totalBody, total)
		}
		for _, field := range asked.Fields {
			want := text(total.Data[0][field])
			if foot[field] != want {
				t.Fatalf("the total row's %s shows %s, the API %s", field, foot[field], want)
			}
			sum := decimal.Zero
			for _, row := range a.Data {
				sum = sum.Add(decimal.RequireFromString(text(row[field])))
			}
			if !sum.Equal(decimal.RequireFromString(want)) {
				t.Fatalf("rows by %v: %s sums to %s, the traffic total %s", dims, field, sum, want)
			}
		}
		warnings = append(warnings, total.Warnings...)
	}
	listed := eval[[]string](tb, `[...document.querySelectorAll('#warning-list li')].map((li) => li.dataset.raw)`)
	slices.Sort(warnings)
	warnings = slices.Compact(warnings)
	slices.Sort(listed)
	if !slices.Equal(listed, warnings) {
		t.Fatalf("warnings shown %q, API %q", listed, warnings)
	}
}

// rowKey is how the page keys a row: the JSON array of its dimensions' values (null when missing).
func rowKey(row map[string]any, dims []string) string {
	values := make([]any, len(dims))
	for i, d := range dims {
		if v, ok := row[d].(string); ok {
			values[i] = v
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(values); err != nil {
		panic(err)
	}
	return strings.TrimSpace(b.String())
}
