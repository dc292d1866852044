package dashboard_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"

	"mtk/internal/browsertest"
)

// The dashboard a marketer reads on a phone and acts from, at 1280 and 390 pixels, over a shop
// with ads, traffic, orders and a buyer's journey: every view (Performance, Sources, Products)
// and a few states (a model, hour over 30 days, a filter from a clicked row, the same filter
// from a shared link) keep the page from scrolling sideways, show every number whole inside the
// window and its card, cut no text with an ellipsis, and show the API's numbers. Screenshots of
// each are kept (MTK_SCREENSHOTS, see screenshotDir).
func TestDashboardPhoneAndFilters(t *testing.T) {
	f := startServer(t)
	f.seedShop()
	f.seedJourney()
	for _, width := range []int64{1280, 390} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			tb := newTab(t, width, 900)
			shots := screenshotDir(t)
			shot := func(name string) { tb.screenshot(shots, fmt.Sprintf("%s-%dpx.png", name, width)) }
			tb.signInWithKey(f)
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="30d"]`)))
			tb.act("ready", choose("#granularity", "day"))
			tb.act("ready", choose("#level", "campaign"))

			// Performance: the ad view's revenue beside all revenue and the unattributed rest.
			tb.checkView(f)
			tb.checkViews(f)
			tb.checkLayout()
			shot("performance")

			// A tile pressed draws its metric on the chart (Plausible's tiles); pressed again, back.
			tb.act("ready", press(`#kpis [data-charts="profit"]`))
			tb.checkTile(f, "profit")
			tb.checkLayout()
			shot("performance-profit-chart")
			// Spend is in the series already: the tile redraws the chart without a query.
			tb.Run(press(`#kpis [data-charts="profit"]`), press(`#kpis [data-charts="spend"]`))
			tb.checkTile(f, "spend")
			tb.Run(press(`#kpis [data-charts="spend"]`))
			tb.checkView(f)

			// A model: its effect in words; the Total row is what its rows add up to.
			tb.act("ready", choose("#model", "linear"))
			tb.checkView(f)
			tb.checkViews(f)
			tb.checkFootSums()
			tb.checkLayout()
			shot("performance-linear")
			tb.act("ready", choose("#model", "reported"))

			// Hour over 30 days: day rows are steps of their own, never joined to the hour line;
			// the previous period is drawn; an outlier does not flatten the axis.
			tb.act("ready", choose("#granularity", "hour"))
			tb.checkView(f)
			tb.checkCharts(f)
			tb.checkLayout()
			shot("hours-30d")
			tb.act("ready", choose("#granularity", "day"))

			// A campaign clicked filters every view, the address keeps it, a chip clears it.
			// The campaign that the shop's orders name in their UTM.
			row := `#entity-table tbody tr[data-key="alpha_ads|` + alphaAccount + `_c0"] button.pick`
			name := eval[string](tb, `document.querySelector('`+row+`').textContent`)
			tb.act("ready", press(row))
			campaign := tb.checkFilter("campaign_id", name, true)
			if rows := tb.tableRows(); len(rows) != 1 || !strings.HasSuffix(rows[0]["key"], "|"+campaign) {
				t.Fatalf("filtered by campaign %s, the table shows %v", campaign, rows)
			}
			tb.checkView(f)
			tb.checkLayout()
			shot("filtered-campaign")
			// Sources by that campaign: the traffic view's orders and events credited to it.
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="sources"]`)))
			tb.checkFilter("campaign_id", name, true)
			tb.checkBreakdown(f, []string{"utm_source"}, "tx_revenue")
			tb.checkLayout()
			shot("sources-by-campaign")
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="performance"]`)))
			tb.act("ready", press(`#filters .chip-clear`))
			if chips := eval[int](tb, `document.querySelectorAll('#filters .chip').length`); chips != 0 || strings.Contains(tb.requestBody("table"), `"filters"`) {
				t.Fatalf("after clearing: %d chips, table body %s", chips, tb.requestBody("table"))
			}

			// Sources: a source clicked filters Sources and Products; Performance says it cannot.
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="sources"]`)))
			tb.checkBreakdown(f, []string{"utm_source"}, "tx_revenue")
			tb.checkLayout()
			shot("sources")
			tb.act("ready", choose("#breakdown-dimension", "payment_method"))
			tb.checkBreakdown(f, []string{"payment_method"}, "tx_revenue")
			tb.checkLayout()
			shot("sources-payment")
			tb.act("ready", choose("#breakdown-dimension", "utm_source"))
			tb.act("ready", press(`#breakdown-rows tbody tr[data-key='["newsletter"]'] button.pick`))
			tb.checkFilter("utm_source", "newsletter", true)
			tb.checkBreakdown(f, []string{"utm_source"}, "tx_revenue")
			if keys := eval[[]string](tb, `[...document.querySelectorAll('#breakdown-rows tbody tr')].map((tr) => tr.dataset.key)`); !slices.Equal(keys, []string{`["newsletter"]`}) {
				t.Fatalf("filtered by newsletter, the rows are %v", keys)
			}
			tb.checkLayout()
			shot("filtered-source")
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="products"]`)))
			tb.checkFilter("utm_source", "newsletter", true)
			tb.checkBreakdown(f, []string{"product_id", "product_name"}, "tx_revenue")
			tb.checkLayout()
			shot("products-filtered")
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="performance"]`)))
			tb.checkFilter("utm_source", "newsletter", false)
			tb.checkView(f)
			tb.checkLayout()

			// The address, opened in another tab (a shared link), shows the same view.
			link := eval[string](tb, `location.href`)
			other := newTab(t, width, 900)
			other.Run(chromedp.Navigate(link))
			other.waitLoaded(-1, "signed-out")
			other.Run(chromedp.Click(chromedp.CSS(`[data-signin="key"]`)))
			other.act("ready", chromedp.SendKeys(chromedp.ID("signin-key"), f.key), chromedp.Click(chromedp.ID("signin-submit")))
			other.checkFilter("utm_source", "newsletter", false)
			if got, want := other.requestBody("totals"), tb.requestBody("totals"); got != want {
				t.Fatalf("the shared link asks %s, the page it was copied from %s", got, want)
			}
			for _, tab := range []*tab{tb, other} {
				if errs := tab.Errors(); len(errs) > 0 {
					t.Fatalf("the page logged errors:\n%s", strings.Join(errs, "\n"))
				}
			}
		})
	}
}

// checkLayout checks what a reader of the page sees: no sideways scrolling of the page; every
// number (table cells, totals, the views line) whole, inside the window and inside its card and
// every box that clips it; no text cut with an ellipsis.
func (tb *tab) checkLayout() {
	tb.T.Helper()
	problems := eval[[]string](tb, `(() => {
		const out = [];
		const page = document.scrollingElement;
		if (page.scrollWidth > window.innerWidth) out.push('the page is ' + page.scrollWidth + 'px wide in a ' + window.innerWidth + 'px window');
		const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + '.' + String(e.className.baseVal ?? e.className).replace(/ /g, '.') +
			(e.dataset.key ? '[' + e.dataset.key + ']' : '') + ' "' + e.textContent.slice(0, 40) + '"';
		const numbers = document.querySelectorAll('td.num, .kpi-value, .kpi-change, .kpi-sub, .view-item, .chip');
		let seen = 0;
		for (const e of numbers) {
			if (!e.getClientRects().length || e.closest('[hidden]')) continue;
			seen++;
			const r = e.getBoundingClientRect();
			if (r.left < -0.5 || r.right > window.innerWidth + 0.5) out.push(name(e) + ' outside the window: ' + r.left + '..' + r.right);
			if (e.scrollWidth > e.clientWidth + 1) out.push(name(e) + ' clipped: ' + e.scrollWidth + ' > ' + e.clientWidth);
			for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
				const cs = getComputedStyle(a);
				if (!a.matches('.card, .kpi, .views') && cs.overflowX === 'visible') continue;
				const b = a.getBoundingClientRect();
				if (r.left < b.left - 0.5 || r.right > b.right + 0.5) out.push(name(e) + ' outside ' + name(a) + ': ' + r.left + '..' + r.right + ' in ' + b.left + '..' + b.right);
			}
		}
		if (!seen) out.push('no number on the page');
		for (const e of document.querySelectorAll('body *')) {
			if (!e.getClientRects().length || e.closest('[hidden]')) continue;
			if (getComputedStyle(e).textOverflow === 'ellipsis' && e.scrollWidth > e.clientWidth) out.push(name(e) + ' cut with an ellipsis');
		}
		return out;
	})()`)
	if len(problems) > 0 {
		tb.T.Fatalf("layout at %v px:\n%s", eval[float64](tb, `window.innerWidth`), strings.Join(problems, "\n"))
	}
}

// checkViews checks the line of the two views against the API: attributed revenue and sales are
// the ad view's totals, all revenue the traffic view's total of the page's own body, and the
// unattributed amount their difference, to the cent.
func (tb *tab) checkViews(f *fixture) {
	tb.T.Helper()
	t := tb.T
	totals := f.query(tb.requestBody("totals")).Data[0]
	traffic := f.query(tb.requestBody("traffic"))
	if !strings.Contains(tb.requestBody("traffic"), `"dimensions":[]`) || len(traffic.Data) != 1 {
		t.Fatalf("traffic body %s: %+v", tb.requestBody("traffic"), traffic)
	}
	all := traffic.Data[0]
	shown := map[string]map[string]string{}
	for _, item := range tb.dataAttrs("#views .view-item") {
		shown[item["key"]] = item
	}
	want := map[string][2]string{
		"attributed": {text(totals["tx_revenue"]), text(totals["tx_count"])},
		"all":        {text(all["tx_revenue"]), text(all["tx_count"])},
	}
	left := decimal.RequireFromString(text(all["tx_revenue"])).Sub(decimal.RequireFromString(text(totals["tx_revenue"])))
	if !left.IsNegative() {
		leftCount := decimal.RequireFromString(text(all["tx_count"])).Sub(decimal.RequireFromString(text(totals["tx_count"])))
		want["unattributed"] = [2]string{left.String(), leftCount.String()}
	}
	if len(shown) != len(want) {
		t.Fatalf("the views line shows %v, want %v", shown, want)
	}
	for key, w := range want {
		got := shown[key]
		if got == nil || !decimal.RequireFromString(got["value"]).Equal(decimal.RequireFromString(w[0])) ||
			!decimal.RequireFromString(got["count"]).Equal(decimal.RequireFromString(w[1])) {
			t.Fatalf("views line %s shows %v, want revenue %s and sales %s", key, got, w[0], w[1])
		}
	}
	line := tb.text("#views")
	if model := eval[string](tb, `document.getElementById('model').value`); model != "reported" {
		reported := f.query(tb.requestBody("reported")).Data[0]
		if !strings.Contains(line, "the reported attribution "+brl(text(reported["tx_revenue"]))) {
			t.Fatalf("views line %q does not state the reported revenue %s", line, text(reported["tx_revenue"]))
		}
	}
}

// checkFootSums checks that the entity table's Total row equals the sum of its rows in every
// column that adds up.
func (tb *tab) checkFootSums() {
	tb.T.Helper()
	foot := eval[map[string]string](tb, `Object.fromEntries([...document.querySelectorAll('#entity-table tfoot td')]
		.filter((td) => td.dataset.value !== undefined).map((td) => [td.dataset.key, td.dataset.value]))`)
	rows := tb.tableRows()
	for _, field := range []string{"spend", "impressions", "clicks", "tx_revenue", "tx_count", "profit"} {
		sum := decimal.Zero
		for _, r := range rows {
			if r[field] != "null" {
				sum = sum.Add(decimal.RequireFromString(r[field]))
			}
		}
		if foot[field] == "" || !decimal.RequireFromString(foot[field]).Equal(sum) {
			tb.T.Fatalf("the Total row's %s is %s, its %d rows add up to %s", field, foot[field], len(rows), sum)
		}
	}
}

// checkCharts checks the hour chart over days of which some are kept per day: each day row is a
// flat step of its own across its day, and no solid line reaches into the day rows' span; the
// previous period is drawn; the ROAS axis is cut exactly when an outlier would flatten it (the
// largest size of a value over three times the 95th percentile of the sizes), with a marker for
// each value beyond the cut.
func (tb *tab) checkCharts(f *fixture) {
	tb.T.Helper()
	t := tb.T
	rows := f.query(tb.requestBody("series")).Data
	dayRows := 0
	for _, r := range rows {
		if r["granularity"] == "day" {
			dayRows++
		}
	}
	if dayRows < 20 {
		t.Fatalf("the hour series has %d day rows", dayRows)
	}
	got := eval[map[string]float64](tb, `(() => {
		const chart = document.querySelector('#chart-money');
		const dayEnd = Math.max(...[...chart.querySelectorAll('.band-coarse')].map((b) => +b.getAttribute('x') + +b.getAttribute('width')));
		const solidStart = Math.min(...[...chart.querySelectorAll('path.line:not(.line-coarse):not(.line-previous):not(.line-partial)')]
			.map((p) => +p.getAttribute('d').slice(1).split(',')[0]));
		return {steps: chart.querySelectorAll('path.line-coarse').length, previous: chart.querySelectorAll('path.line-previous').length,
			dayEnd, solidStart, notes: document.getElementById('note-money').hidden ? 0 : 1};
	})()`)
	if got["steps"] < float64(dayRows) || got["previous"] == 0 || got["solidStart"] < got["dayEnd"] || got["notes"] != 1 {
		t.Fatalf("hour chart over day rows: %v (%d day rows)", got, dayRows)
	}
	// The previous period is the same series over the days just before, as long.
	var current, previous struct {
		Time struct{ Start, End, Granularity string }
	}
	if json.Unmarshal([]byte(tb.requestBody("series")), &current) != nil || json.Unmarshal([]byte(tb.requestBody("previous")), &previous) != nil {
		t.Fatal("series bodies")
	}
	length := len(daysBetween(t, current.Time.Start, current.Time.End))
	if previous.Time.Granularity != "hour" || previous.Time.End != addDays(t, current.Time.Start, -1) ||
		previous.Time.Start != addDays(t, current.Time.Start, -length) {
		t.Fatalf("previous period %+v of %+v", previous.Time, current.Time)
	}
	if len(f.query(tb.requestBody("previous")).Data) == 0 {
		t.Fatal("no previous period rows to draw")
	}
	var values []float64
	for _, r := range append(rows, f.query(tb.requestBody("previous")).Data...) {
		if s := text(r["roas"]); s != "null" {
			if x := math.Abs(decimal.RequireFromString(s).InexactFloat64()); x > 0 {
				values = append(values, x)
			}
		}
	}
	sort.Float64s(values)
	cut := len(values) >= 8 && values[len(values)-1] > 3*values[int(0.95*float64(len(values)-1))]
	roas := eval[map[string]string](tb, `({cut: document.getElementById('note-roas').dataset.cut,
		marks: String(document.querySelectorAll('#chart-roas .clip-mark').length)})`)
	if (roas["cut"] != "null") != cut || (cut && roas["marks"] == "0") {
		t.Fatalf("ROAS axis: %v, want cut %v (values %v)", roas, cut, values)
	}
}

// checkTile checks that the tile of metric is pressed, alone, and that the first chart draws
// metric's series as the API answers the page's series body.
func (tb *tab) checkTile(f *fixture, metric string) {
	tb.T.Helper()
	pressed := eval[[]string](tb, `[...document.querySelectorAll('#kpis [aria-pressed="true"]')].map((k) => k.dataset.key)`)
	if !slices.Equal(pressed, []string{metric}) || !strings.Contains(tb.requestBody("series"), `"`+metric+`"`) {
		tb.T.Fatalf("tiles pressed %v, series body %s; want %s", pressed, tb.requestBody("series"), metric)
	}
	rows := f.query(tb.requestBody("series")).Data
	points := tb.dataAttrs("#chart-money .bucket")
	if len(points) != len(rows) {
		tb.T.Fatalf("the chart has %d buckets, the API %d rows", len(points), len(rows))
	}
	for i, row := range rows {
		if want := map[string]string{"date": text(row["date"]), metric: text(row[metric])}; !mapsEqual(points[i], want) {
			tb.T.Fatalf("bucket %d: %v, API %v", i, points[i], want)
		}
	}
}

// press clicks the element selector names, as a tap on it would (a sticky top bar may cover
// the point a pointer would click).
func press(selector string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%s).click()`, browsertest.JS(selector)))
}

// daysBetween lists the dates from start to end, both included.
func daysBetween(t *testing.T, start, end string) []string {
	var out []string
	for d := start; d <= end; d = addDays(t, d, 1) {
		out = append(out, d)
	}
	return out
}

// checkFilter checks that the page shows one filter chip, by member, labelled with label, applied
// to the view or greyed; that the address holds it; and that the view's queries carry it as
// applied says. It returns the filter's value.
func (tb *tab) checkFilter(member, label string, applied bool) string {
	tb.T.Helper()
	t := tb.T
	chips := tb.dataAttrs("#filters .chip")
	if len(chips) != 1 || chips[0]["member"] != member || chips[0]["applied"] != fmt.Sprint(applied) ||
		!strings.Contains(tb.text("#filters .chip"), label) {
		t.Fatalf("filter chips %v %q, want %s %q applied %v", chips, tb.text("#filters"), member, label, applied)
	}
	hash := eval[string](tb, `location.hash.slice(1)`)
	q, err := url.ParseQuery(hash)
	if err != nil || len(q["filter"]) != 1 || !strings.HasPrefix(q["filter"][0], member+":") {
		t.Fatalf("the address %q does not hold the filter on %s", hash, member)
	}
	value := strings.TrimPrefix(q["filter"][0], member+":")
	names := []string{"series", "totals", "table"}
	if page := q.Get("page"); page == "sources" || page == "products" {
		names = []string{"breakdown", "trend"}
	}
	for _, name := range names {
		var body struct {
			Filters []struct {
				Member, Operator string
				Values           []string
			}
		}
		if err := json.Unmarshal([]byte(tb.requestBody(name)), &body); err != nil {
			t.Fatal(err)
		}
		has := len(body.Filters) == 1 && body.Filters[0].Member == member && slices.Equal(body.Filters[0].Values, []string{value})
		if has != applied || (!applied && len(body.Filters) > 0) {
			t.Fatalf("the %s body %s; want the filter %s=%s applied %v", name, tb.requestBody(name), member, value, applied)
		}
	}
	return value
}
