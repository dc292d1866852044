package dashboard_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dashboard at a desktop's and a phone's width (1280 and 390 pixels): a person signs in with
// their e-mail and password; the page never scrolls sideways and shows the totals whole; charts
// place buckets on a time axis with dates (an hour series over 30 days mixes day and hour rows)
// and mark the partial ones (today so far, a week the range cuts).
func TestDashboardAtDesktopAndPhoneWidths(t *testing.T) {
	f := startServer(t)
	for _, width := range []int64{1280, 390} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			tb := newTab(t, width, 900)
			tb.Run(chromedp.Navigate(f.url + "/dashboard"))
			tb.waitLoaded(-1, "signed-out")
			tb.checkFits()

			// E-mail and password: a wrong password is refused with the API's message, the right
			// one gives a login token that the page's queries use in the project's workspace.
			tb.act("signed-out", chromedp.SendKeys(chromedp.ID("signin-email"), f.email),
				chromedp.SendKeys(chromedp.ID("signin-pass"), "not-the-password"), chromedp.Click(chromedp.ID("signin-submit")))
			if msg := tb.text("#signin-error"); !strings.HasPrefix(msg, "The API refused this sign-in: ") || len(msg) < 40 {
				t.Fatalf("sign-in error %q", msg)
			}
			tb.act("ready", chromedp.SendKeys(chromedp.ID("signin-pass"), f.password), chromedp.Click(chromedp.ID("signin-submit")))
			token := eval[string](tb, `JSON.parse(sessionStorage.getItem('mtk.dashboard.jwt')).token`)
			if hint := tb.text("#key-hint"); hint != f.email || strings.Count(token, ".") != 2 {
				t.Fatalf("signed in as %q with token %q", hint, token)
			}
			if status := f.projectsStatus(token); status != 200 {
				t.Fatalf("the page's login token: GET /v3/projects %d", status)
			}
			tb.act("ready", choose("#project", f.project.ID))
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="30d"]`)))
			tb.act("ready", choose("#granularity", "day"))
			tb.act("ready", choose("#level", "campaign"))
			tb.checkView(f)
			tb.checkFits()
			tb.checkKpis()
			// Cards narrower still show short amounts, whole, with the exact ones on hover.
			tb.Run(chromedp.Evaluate[chromedp.Void](`document.getElementById('kpis').style.maxWidth = '240px'`))
			tb.Run(chromedp.Poll[chromedp.Void](`document.querySelector('#kpis .kpi-value').textContent.endsWith('K')`))
			if tb.checkKpis() == 0 {
				t.Fatal("no total shown short in narrow cards")
			}
			tb.Run(chromedp.Evaluate[chromedp.Void](`document.getElementById('kpis').style.maxWidth = ''`))
			shots := screenshotDir(t)
			tb.screenshot(shots, fmt.Sprintf("dashboard-%dpx.png", width))

			// Partial buckets: today so far; by week, the week of today and a first week that
			// starts before the range.
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="7d"]`)))
			tb.checkView(f)
			tb.checkPartial(false)
			tb.act("ready", choose("#granularity", "week"))
			tb.checkView(f)
			var asked struct{ Time struct{ Start string } }
			if err := json.Unmarshal([]byte(tb.requestBody("series")), &asked); err != nil {
				t.Fatal(err)
			}
			start, err := time.Parse(time.DateOnly, asked.Time.Start)
			if err != nil {
				t.Fatal(err)
			}
			tb.checkPartial(start.Weekday() != time.Monday)
			tb.screenshot(shots, fmt.Sprintf("dashboard-weeks-%dpx.png", width))

			// An hour series over 30 days: day rows where ad data is kept by day, hour rows after.
			tb.act("ready", chromedp.Click(chromedp.CSS(`[data-range="30d"]`)))
			tb.act("ready", choose("#granularity", "hour"))
			tb.checkView(f)
			tb.checkTimeAxis(f)
			tb.checkFits()
			tb.screenshot(shots, fmt.Sprintf("dashboard-hours-30d-%dpx.png", width))

			// Signing out revokes the login token.
			tb.Run(chromedp.Click(chromedp.ID("signout")))
			if st := eval[string](tb, `document.body.dataset.state + ' ' + (sessionStorage.getItem('mtk.dashboard.jwt') || 'none')`); st != "signed-out none" {
				t.Fatalf("after sign-out: %s", st)
			}
			for deadline := time.Now().Add(5 * time.Second); f.projectsStatus(token) != 401; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the login token still works after signing out")
				}
			}
			if errs := tb.Errors(); len(errs) > 0 {
				t.Fatalf("the page logged errors:\n%s", strings.Join(errs, "\n"))
			}
		})
	}
}

// checkFits checks that nothing makes the page wider than the window (no sideways scrolling)
// and that no control or total is cut off.
func (tb *tab) checkFits() {
	tb.T.Helper()
	w := eval[map[string]float64](tb, `({scroll: document.documentElement.scrollWidth, inner: window.innerWidth})`)
	if w["scroll"] > w["inner"] {
		wide := eval[[]string](tb, `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
			.map((e) => e.tagName + '#' + e.id + '.' + e.className).slice(0, 12)`)
		tb.T.Fatalf("the page is %v px wide in a %v px window; too wide: %v", w["scroll"], w["inner"], wide)
	}
	if cut := eval[[]string](tb, `[...document.querySelectorAll('.segmented, .segmented button, .toolbar select, .topbar button, .kpi-value')]
		.filter((e) => e.offsetParent && e.scrollWidth > e.clientWidth).map((e) => e.className + ' ' + e.textContent)`); len(cut) > 0 {
		tb.T.Fatalf("cut off: %q", cut)
	}
}

// checkPartial checks that both charts mark their last bucket partial (the range ends today), the
// first one when first is true, and no other; the line is dashed into it (or, when the range is
// one bucket, a week from a Monday to today's Sunday, its point hollow) and its bar outlined.
func (tb *tab) checkPartial(first bool) {
	tb.T.Helper()
	for _, chart := range []string{"#chart-money", "#chart-roas"} {
		marks := eval[[]bool](tb, `[...document.querySelectorAll('`+chart+` .bucket')].map((b) => b.classList.contains('partial'))`)
		for i, partial := range marks {
			if want := i == len(marks)-1 || (i == 0 && first); partial != want {
				tb.T.Fatalf("%s bucket %d of %d partial %v, want %v", chart, i, len(marks), partial, want)
			}
		}
	}
	if n := eval[int](tb, `(document.querySelectorAll('#chart-money .bucket').length > 1 ? document.querySelectorAll('#chart-money .line-partial').length
		: document.querySelectorAll('#chart-money .point-partial').length) + 10 * document.querySelectorAll('#chart-roas .bar.partial').length`); n%10 == 0 || n < 10 {
		tb.T.Fatalf("partial buckets drawn: %d dashed segments, %d pale bars", n%10, n/10)
	}
}

// checkTimeAxis checks that the money chart's buckets sit on a time axis: each as wide as the
// time it covers (a day row 24 hour rows wide) at its instant, with distinct tick labels that
// do not overlap, dates among them.
func (tb *tab) checkTimeAxis(f *fixture) {
	tb.T.Helper()
	t := tb.T
	rects := eval[[]struct{ X, W float64 }](tb, `[...document.querySelectorAll('#chart-money .bucket')].map((r) => ({x: +r.getAttribute('x'), w: +r.getAttribute('width')}))`)
	rows := f.query(tb.requestBody("series")).Data
	if len(rects) != len(rows) {
		t.Fatalf("%d buckets, %d rows", len(rects), len(rows))
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	spans := make([][2]time.Time, len(rows))
	days, hours := 0, 0
	for i, row := range rows {
		date := text(row["date"])
		if row["granularity"] == "day" {
			d, err := time.ParseInLocation(time.DateOnly, date, loc)
			if err != nil {
				t.Fatal(err)
			}
			spans[i] = [2]time.Time{d, d.AddDate(0, 0, 1)}
			days++
			continue
		}
		h, err := time.Parse(time.RFC3339, date)
		if err != nil {
			t.Fatalf("row %d: %v", i, err)
		}
		spans[i] = [2]time.Time{h, h.Add(time.Hour)}
		hours++
	}
	if days < 20 || hours < 24 {
		t.Fatalf("the series has %d day rows and %d hour rows", days, hours)
	}
	perHour := rects[len(rects)-1].W / spans[len(spans)-1][1].Sub(spans[len(spans)-1][0]).Hours()
	for i, r := range rects {
		wantW := perHour * spans[i][1].Sub(spans[i][0]).Hours()
		wantX := rects[0].X + perHour*spans[i][0].Sub(spans[0][0]).Hours()
		if math.Abs(r.W-wantW) > 0.01 || math.Abs(r.X-wantX) > 0.05 {
			t.Fatalf("bucket %d (%s) at x %.2f, %.2f wide; want x %.2f, %.2f wide", i, text(rows[i]["date"]), r.X, r.W, wantX, wantW)
		}
	}
	ticks := eval[[]struct {
		Label       string
		Left, Right float64
	}](tb, `[...document.querySelectorAll('#chart-money .x-tick')].map((e) => { const b = e.getBBox();
		return {label: e.textContent, left: b.x, right: b.x + b.width}; })`)
	seen, dated := map[string]bool{}, 0
	for i, tick := range ticks {
		if seen[tick.Label] || (i > 0 && tick.Left < ticks[i-1].Right+2) {
			t.Fatalf("axis labels repeat or overlap: %+v", ticks)
		}
		seen[tick.Label] = true
		if regexp.MustCompile(`^[A-Z][a-z]{2} \d{1,2}$`).MatchString(tick.Label) {
			dated++
		}
	}
	if dated < 2 {
		t.Fatalf("axis labels without dates: %+v", ticks)
	}
}

// checkKpis checks that each money total shows its exact amount, or a short form of it when the
// exact one does not fit, with the exact amount on hover.
// It returns how many are short.
func (tb *tab) checkKpis() int {
	tb.T.Helper()
	short := 0
	for _, k := range eval[[]map[string]string](tb, `[...document.querySelectorAll('#kpis .kpi')].map((k) => ({key: k.dataset.key,
		value: k.dataset.value, shown: k.querySelector('.kpi-value').textContent, title: k.querySelector('.kpi-value').title}))`) {
		if k["key"] != "spend" && k["key"] != "tx_revenue" && k["key"] != "profit" {
			continue
		}
		exact := brl(k["value"])
		if k["title"] != exact || (k["shown"] != exact && !regexp.MustCompile(`^-?R\$[0-9.]+[KMB]$`).MatchString(k["shown"])) {
			tb.T.Fatalf("total %s (%s) shows %q, title %q", k["key"], k["value"], k["shown"], k["title"])
		}
		if k["shown"] != exact {
			short++
		}
	}
	return short
}

// projectsStatus is the status of GET /v3/projects with a login token.
func (f *fixture) projectsStatus(token string) int {
	f.t.Helper()
	req, err := http.NewRequest("GET", f.url+"/v3/projects", nil)
	if err != nil {
		f.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
