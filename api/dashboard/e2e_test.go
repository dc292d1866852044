package dashboard_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/shopspring/decimal"
)

// The dashboard in headless Chromium against the real API: sign in, pick the project, range,
// granularity, level and currency, and every number the charts, totals and table show is the
// one POST /v3/query answers for the same body; warnings and errors from the API are shown;
// the table sorts; the layout holds at 1280 and 800 pixels.
func TestDashboardInBrowser(t *testing.T) {
	f := startServer(t)
	tb := newTab(t, 1280, 900)
	shots := screenshotDir(t)

	tb.Run(chromedp.Navigate(f.url + "/dashboard"))
	tb.waitLoaded(-1, "signed-out")

	// A wrong key is refused with the API's own message.
	tb.Run(chromedp.Click(chromedp.CSS(`[data-signin="key"]`)))
	tb.act("signed-out", chromedp.SendKeys(chromedp.ID("signin-key"), "mtk_live_not-a-key"), chromedp.Click(chromedp.ID("signin-submit")))
	if msg := tb.text("#signin-error"); !strings.Contains(msg, "The API refused this key: ") || len(msg) < 30 {
		t.Fatalf("sign-in error %q", msg)
	}

	tb.act("ready", chromedp.SendKeys(chromedp.ID("signin-key"), f.key), chromedp.Click(chromedp.ID("signin-submit")))
	if got := eval[string](tb, `sessionStorage.getItem('mtk.dashboard.key')`); got != f.key {
		t.Fatalf("session storage holds %q", got)
	}
	projects := eval[[]string](tb, `[...document.querySelectorAll('#project option')].map((o) => o.value)`)
	if !slices.Contains(projects, f.project.ID) || !slices.Contains(projects, f.empty.ID) || len(projects) != 2 {
		t.Fatalf("project choices %v", projects)
	}

	tb.act("ready", choose("#project", f.project.ID))
	tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="7d"]`)))
	tb.act("ready", choose("#granularity", "day"))
	tb.act("ready", choose("#level", "campaign"))
	series := tb.checkView(f)
	var asked struct {
		ProjectID string `json:"project_id"`
		Time      struct{ Start, End, Granularity string }
	}
	if err := json.Unmarshal([]byte(series), &asked); err != nil {
		t.Fatal(err)
	}
	// Today in the project's zone (the page may have reached the next day since the setup).
	if today := asked.Time.End; (today != f.today && today != addDays(t, f.today, 1)) || asked.Time.Start != addDays(t, today, -6) ||
		asked.Time.Granularity != "day" || asked.ProjectID != f.project.ID {
		t.Fatalf("the last-7-days series asked %s", series)
	}
	if w := tb.text("#warnings"); w != "" {
		t.Fatalf("warnings shown for a clean range: %s", w)
	}
	// Money reads as the currency's, from the exact text: the first row's spend.
	row := tb.tableRows()[0]
	if cell := tb.text(`#entity-table tbody tr:first-child td[data-key="spend"]`); cell != brl(row["spend"]) {
		t.Fatalf("spend cell %q, want %q", cell, brl(row["spend"]))
	}

	// Sorting: spend is sorted descending first; a click turns it ascending; names sort too.
	tb.checkSorted("spend", "descending")
	tb.Run(chromedp.Click(chromedp.CSS(`th[data-key="spend"] button`)))
	tb.checkSorted("spend", "ascending")
	tb.Run(chromedp.Click(chromedp.CSS(`th[data-key="roas"] button`)))
	tb.checkSorted("roas", "descending")
	tb.Run(chromedp.Click(chromedp.CSS(`th[data-key="name"] button`)))
	tb.checkSorted("name", "ascending")

	// Hover values: the tooltip names the bucket and shows its exact values.
	tb.Run(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	box := eval[map[string]float64](tb, `(() => { const r = document.querySelector('#chart-money svg').getBoundingClientRect();
		return {x: r.left + r.width * 0.6, y: r.top + r.height / 2}; })()`)
	tb.Run(chromedp.MouseEvent("mouseMoved", box["x"], box["y"]))
	if tip := tb.text("#chart-money .tooltip"); !strings.Contains(tip, "Spend") || !strings.Contains(tip, "Revenue") || !strings.Contains(tip, "R$") {
		t.Fatalf("tooltip %q", tip)
	}
	tb.screenshot(shots, "dashboard-1280.png")

	// Ads by week in US dollars, over 30 days.
	tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="30d"]`)))
	tb.act("ready", choose("#granularity", "week"))
	tb.act("ready", choose("#level", "ad"))
	tb.act("ready", choose("#currency", "USD"))
	if s := tb.checkView(f); !strings.Contains(s, `"convert_to_currency":"USD"`) || !strings.Contains(s, `"granularity":"week"`) {
		t.Fatalf("series asked %s", s)
	}

	// Hours of days that only the daily table holds: the API answers by day and warns.
	tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="custom"]`)))
	tb.act("ready", choose("#range-start", f.fallbackStart))
	tb.act("ready", choose("#range-end", f.fallbackEnd))
	tb.act("ready", choose("#granularity", "hour"))
	tb.act("ready", choose("#currency", ""))
	tb.act("ready", choose("#level", "project"))
	series = tb.checkView(f)
	a := f.query(series)
	// The API's warning, in plain words.
	if len(a.Warnings) == 0 || !strings.Contains(tb.text("#warnings"), "is kept per day only: those days are shown as whole days") || len(a.Data) != 10 {
		t.Fatalf("fallback: API warnings %q, %d rows; page shows %q", a.Warnings, len(a.Data), tb.text("#warnings"))
	}
	if sub := tb.text("#subtitle"); !strings.Contains(sub, "by day (asked: hour)") {
		t.Fatalf("fallback subtitle %q", sub)
	}

	// A range that ends before it starts: the API's error, with its message and details.
	tb.act("error", choose("#range-start", f.fallbackEnd), choose("#range-end", f.fallbackStart))
	a = f.query(tb.requestBody("series"))
	if a.Error == nil || !strings.Contains(tb.text("#error"), a.Error.Message) || !strings.Contains(tb.text("#error"), a.Error.Details[0]) {
		t.Fatalf("error shown %q, API said %+v", tb.text("#error"), a.Error)
	}

	// At 800 pixels the page folds into one column without a horizontal scroll bar.
	tb.Run(chromedp.EmulateViewport(800, 1000))
	tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="30d"]`)))
	tb.act("ready", choose("#level", "campaign"))
	tb.checkView(f) // 720 hours
	// The month by hour holds the month's spend: the days whose ad data sync keeps per day are day
	// rows, the last week hour rows, and they add up to the cards' total, to the cent.
	month := f.query(tb.requestBody("series"))
	var spend decimal.Decimal
	days := 0
	for _, row := range month.Data {
		spend = spend.Add(decimal.RequireFromString(text(row["spend"])))
		if row["granularity"] == "day" {
			days++
		}
	}
	total := f.query(tb.requestBody("totals")).Data[0]["spend"]
	if spend.StringFixed(2) != text(total) || days < 20 || !strings.Contains(tb.text("#subtitle"), "some rows by day") {
		t.Fatalf("hours of 30 days: spend %s over %d rows (%d day rows), cards %s; subtitle %q",
			spend.StringFixed(2), len(month.Data), days, text(total), tb.text("#subtitle"))
	}
	tb.screenshot(shots, "dashboard-hours-30d.png")
	tb.act("ready", choose("#granularity", "day"))
	tb.checkView(f)
	layout := eval[map[string]float64](tb, `({scroll: document.documentElement.scrollWidth,
		moneyBottom: document.getElementById('chart-money').getBoundingClientRect().bottom,
		roasTop: document.getElementById('chart-roas').getBoundingClientRect().top})`)
	if layout["scroll"] > 800 || layout["roasTop"] < layout["moneyBottom"] {
		t.Fatalf("layout at 800px: %v", layout)
	}
	tb.screenshot(shots, "dashboard-800.png")

	tb.Run(chromedp.Click(chromedp.ID("signout")))
	if st := eval[string](tb, `document.body.dataset.state + ' ' + (sessionStorage.getItem('mtk.dashboard.key') || 'none')`); st != "signed-out none" {
		t.Fatalf("after sign-out: %s", st)
	}
	if errs := tb.Errors(); len(errs) > 0 {
		t.Fatalf("the page logged errors:\n%s", strings.Join(errs, "\n"))
	}
}

// checkView posts the page's own request bodies to the API and checks that the charts' points,
// the totals, the table and the warnings show what the API answers. It returns the series body.
func (tb *tab) checkView(f *fixture) string {
	tb.T.Helper()
	t := tb.T
	seriesBody := tb.requestBody("series")
	series := f.query(seriesBody)
	if len(series.Data) == 0 {
		t.Fatalf("no rows for %s", seriesBody)
	}
	for _, chart := range []struct{ id, fields string }{{"chart-money", "spend tx_revenue"}, {"chart-roas", "roas"}} {
		points := tb.dataAttrs("#" + chart.id + " .bucket")
		if len(points) != len(series.Data) {
			t.Fatalf("%s has %d points, the API %d rows", chart.id, len(points), len(series.Data))
		}
		for i, row := range series.Data {
			want := map[string]string{"date": text(row["date"])}
			for _, k := range strings.Fields(chart.fields) {
				want[k] = text(row[k])
			}
			if !mapsEqual(points[i], want) {
				t.Fatalf("%s point %d: %v, API %v", chart.id, i, points[i], want)
			}
		}
	}

	totals := f.query(tb.requestBody("totals"))
	if totals.Error != nil || len(totals.Data) != 1 {
		t.Fatalf("the totals request %s: %d rows, error %v", tb.requestBody("totals"), len(totals.Data), totals.Error)
	}
	for _, kpi := range tb.dataAttrs("#kpis .kpi") {
		if want := text(totals.Data[0][kpi["key"]]); kpi["value"] != want {
			t.Fatalf("total %s shows %s, API %s", kpi["key"], kpi["value"], want)
		}
		// The cards' change against the previous period is the API's, from the same request.
		change, _ := totals.Data[0]["change"].(map[string]any)
		if want := text(change[kpi["key"]]); change == nil || kpi["change"] != want {
			t.Fatalf("change of %s shows %s, API %s (%v)", kpi["key"], kpi["change"], want, totals.Data[0]["change"])
		}
	}

	var level string
	warnings := append(series.Warnings, totals.Warnings...)
	// The page's other queries (the previous period's series, all revenue, the reported
	// attribution's totals) list their warnings too.
	for _, name := range []string{"previous", "traffic", "reported"} {
		if body := eval[string](tb, `document.getElementById('request-`+name+`')?.dataset.body || ''`); body != "" {
			warnings = append(warnings, f.query(body).Warnings...)
		}
	}
	rows := totals.Data
	if eval[string](tb, `document.getElementById('level').value`) != "project" {
		table := f.query(tb.requestBody("table"))
		warnings = append(warnings, table.Warnings...)
		rows = table.Data
		if table.TotalRows == nil || tb.dataAttrs("#table-note")[0]["total"] != table.TotalRows.String() {
			t.Fatalf("the table note counts %v rows, the API %v", tb.dataAttrs("#table-note"), table.TotalRows)
		}
		var meta struct{ Metadata struct{ Level string } }
		if err := json.Unmarshal([]byte(tb.requestBody("table")), &meta); err != nil {
			t.Fatal(err)
		}
		level = meta.Metadata.Level
	}
	shown := map[string]map[string]string{}
	for _, r := range tb.tableRows() {
		shown[r["key"]] = r
	}
	if len(shown) != len(rows) {
		t.Fatalf("table has %d rows, the API %d", len(shown), len(rows))
	}
	for _, row := range rows {
		key := ""
		if level != "" {
			key = text(row["source"]) + "|" + strings.TrimSuffix(text(row[level+"_id"]), "null")
		}
		got, ok := shown[key]
		if !ok {
			t.Fatalf("API row %s missing from the table", key)
		}
		for k, v := range row {
			if k == "source" || k == "compare" || k == "change" || strings.HasSuffix(k, "_id") || strings.HasSuffix(k, "_name") {
				continue
			}
			if got[k] != text(v) {
				t.Fatalf("row %s %s shows %s, API %s", key, k, got[k], text(v))
			}
		}
		if name := text(row[level+"_name"]); level != "" && name != "null" && got["name"] != name {
			t.Fatalf("row %s named %q, API %q", key, got["name"], name)
		}
	}

	listed := eval[[]string](tb, `[...document.querySelectorAll('#warning-list li')].map((li) => li.dataset.raw)`)
	slices.Sort(warnings)
	warnings = slices.Compact(warnings)
	slices.Sort(listed)
	if !slices.Equal(listed, warnings) || (len(warnings) > 0) != (tb.text("#warnings") != "") {
		t.Fatalf("warnings shown %q, API %q", listed, warnings)
	}
	return seriesBody
}

// checkSorted checks the table's order by column key and its header's aria-sort.
func (tb *tab) checkSorted(key, dir string) {
	tb.T.Helper()
	if got := eval[string](tb, `document.querySelector('th[data-key="`+key+`"]').getAttribute('aria-sort')`); got != dir {
		tb.T.Fatalf("%s header aria-sort %s, want %s", key, got, dir)
	}
	col := tb.column(key)
	if len(col) < 3 {
		tb.T.Fatalf("too few rows to check sorting: %v", col)
	}
	for i := 1; i < len(col); i++ {
		a, b := col[i-1], col[i]
		var inOrder bool
		switch {
		case key == "name":
			inOrder = strings.ToLower(a) <= strings.ToLower(b) || dir == "descending"
		case b == "null":
			inOrder = true // nulls last in either direction
		case a == "null":
			inOrder = false
		default:
			c := decimal.RequireFromString(a).Cmp(decimal.RequireFromString(b))
			inOrder = (dir == "ascending" && c <= 0) || (dir == "descending" && c >= 0)
		}
		if !inOrder {
			tb.T.Fatalf("%s not sorted %s at row %d: %v", key, dir, i, col)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}

// brl is how the page writes an amount of reais: R$1,234.56, -R$0.50.
func brl(amount string) string {
	sign, digits := "", amount
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	whole, cents, _ := strings.Cut(digits, ".")
	for i := len(whole) - 3; i > 0; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	return sign + "R$" + whole + "." + cents
}

func addDays(t *testing.T, date string, n int) string {
	t.Helper()
	d, err := time.Parse(time.DateOnly, date)
	if err != nil {
		t.Fatal(err)
	}
	return d.AddDate(0, 0, n).Format(time.DateOnly)
}

// screenshotDir is a directory that outlives the test, so the screenshots can be looked at:
// $MTK_SCREENSHOTS/<test name> when MTK_SCREENSHOTS is set (say to .data/screenshots, which git
// ignores), else a new directory under the system's temporary one.
func screenshotDir(t *testing.T) string {
	t.Helper()
	if root := os.Getenv("MTK_SCREENSHOTS"); root != "" {
		dir := filepath.Join(root, strings.NewReplacer("/", "-", " ", "_").Replace(t.Name()))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	dir, err := os.MkdirTemp("", "mtk-dashboard-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves the whole page as a PNG and logs its path.
func (tb *tab) screenshot(dir, name string) {
	tb.T.Helper()
	png, err := chromedp.Run(tb.Ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.T.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		tb.T.Fatal(err)
	}
	tb.T.Logf("screenshot: %s", path)
}
