package dashboard_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"mtk/internal/browsertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Stop()
	os.Exit(code)
}

// tab is one browser tab of a test (browsertest's shared headless Chromium) with the dashboard
// page's helpers.
type tab struct{ *browsertest.Tab }

func newTab(t *testing.T, width, height int64) *tab {
	t.Helper()
	return &tab{browsertest.NewTab(t, width, height)}
}

// eval runs a JavaScript expression in tb's page and returns its value.
func eval[T any](tb *tab, expression string) T {
	tb.T.Helper()
	return browsertest.Eval[T](tb.Tab, expression)
}

// seq is how many loads the page finished.
func (tb *tab) seq() int {
	s := eval[string](tb, `document.body.dataset.seq`)
	var n int
	fmt.Sscan(s, &n)
	return n
}

// act runs an action that starts a load and waits for that load to finish in state want.
func (tb *tab) act(want string, actions ...chromedp.Action[chromedp.Void]) {
	tb.T.Helper()
	before := tb.seq()
	tb.Run(actions...)
	tb.waitLoaded(before, want)
}

// waitLoaded waits until the page finished a load after the before-th one and is in state want.
func (tb *tab) waitLoaded(before int, want string) {
	tb.T.Helper()
	var st struct{ State, Seq string }
	for {
		st = eval[struct{ State, Seq string }](tb, `({State: document.body.dataset.state, Seq: document.body.dataset.seq})`)
		var n int
		fmt.Sscan(st.Seq, &n)
		if n > before && st.State != "loading" {
			break
		}
		select {
		case <-tb.Ctx.Done():
			tb.T.Fatalf("page still loading (state %s, load %s)", st.State, st.Seq)
		case <-time.After(40 * time.Millisecond):
		}
	}
	if st.State != want {
		msg := eval[string](tb, `document.getElementById('error').innerText + document.getElementById('signin-error').innerText`)
		tb.T.Fatalf("page state %s, want %s: %s", st.State, want, msg)
	}
}

// choose sets a form control's value as a person picking it would, firing its change event.
// signInWithKey opens the dashboard, signs in with f's API key and picks f's project.
func (tb *tab) signInWithKey(f *fixture) {
	tb.Run(chromedp.Navigate(f.url + "/dashboard"))
	tb.waitLoaded(-1, "signed-out")
	tb.Run(chromedp.Click(chromedp.CSS(`[data-signin="key"]`)))
	tb.act("ready", chromedp.SendKeys(chromedp.ID("signin-key"), f.key), chromedp.Click(chromedp.ID("signin-submit")))
	tb.act("ready", choose("#project", f.project.ID))
}

func choose(selector, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s;
		e.dispatchEvent(new Event('change', {bubbles: true})); })()`, browsertest.JS(selector), browsertest.JS(value)))
}

// requestBody is the JSON body the page sent for one of its queries (series, totals, table).
func (tb *tab) requestBody(name string) string {
	tb.T.Helper()
	body := eval[string](tb, fmt.Sprintf(`document.getElementById('request-' + %s)?.dataset.body || ''`, browsertest.JS(name)))
	if body == "" {
		tb.T.Fatalf("the page shows no %s request", name)
	}
	return body
}

// dataAttrs returns, for every element matching selector, its data-* attributes.
func (tb *tab) dataAttrs(selector string) []map[string]string {
	return eval[[]map[string]string](tb, fmt.Sprintf(`[...document.querySelectorAll(%s)].map((e) => Object.fromEntries(
		[...e.attributes].filter((a) => a.name.startsWith('data-')).map((a) => [a.name.slice(5), a.value])))`, browsertest.JS(selector)))
}

// tableRows returns the entity table's body rows: each cell's data-value by column, the name
// cell's text under "name", and the row key (source|id) under "key".
func (tb *tab) tableRows() []map[string]string {
	return eval[[]map[string]string](tb, `[...document.querySelectorAll('#entity-table tbody tr')].map((tr) => Object.fromEntries(
		[['key', tr.dataset.key]].concat([...tr.cells].map((td) => [td.dataset.key,
			td.dataset.key === 'name' ? td.querySelector('.name').textContent : td.dataset.value]))))`)
}

// column returns one column of the table's rows in their order.
func (tb *tab) column(key string) []string {
	var out []string
	for _, r := range tb.tableRows() {
		out = append(out, r[key])
	}
	return out
}

// text returns an element's visible text ("" when it is hidden).
func (tb *tab) text(selector string) string {
	s := eval[string](tb, fmt.Sprintf(`(() => { const e = document.querySelector(%s);
		return e && !e.closest('[hidden]') ? e.innerText : ''; })()`, browsertest.JS(selector)))
	return strings.TrimSpace(s)
}
