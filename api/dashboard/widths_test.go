package dashboard_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The dashboard at a desktop's and a phone's width (1280 and 390 pixels): a person signs in with
// their e-mail and password, and the page never scrolls sideways.
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
			tb.screenshot(screenshotDir(t), fmt.Sprintf("dashboard-%dpx.png", width))

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
