package dashboard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is Debian's package (`scripts/services.sh chromium` installs it); without it the
// browser tests fail.
const chromium = "/usr/bin/chromium"

// One headless Chromium serves every test of this package: each test opens its own tab.
var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
	stopBrowser = func() {}
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopBrowser()
	os.Exit(code)
}

func startBrowser() {
	if _, err := os.Stat(chromium); err != nil {
		browserErr = fmt.Errorf("no browser at %s (run `scripts/services.sh chromium` or apt-get install chromium): %w", chromium, err)
		return
	}
	dir, err := os.MkdirTemp("", "mtk-chromium-")
	if err != nil {
		browserErr = err
		return
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium), chromedp.UserDataDir(dir),
		chromedp.Flag("headless", true), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true), chromedp.Flag("mute-audio", true))
	ctx, cancel := chromedp.NewContext(alloc)
	stopBrowser = func() {
		cancel()
		cancelAlloc()
		os.RemoveAll(dir)
	}
	if err := chromedp.Do(ctx); err != nil {
		browserErr = fmt.Errorf("start %s: %w", chromium, err)
		return
	}
	browserCtx = ctx
}

// tab is one browser tab of a test. It records the page's uncaught exceptions and its console
// errors (a load that the CSP blocked, say) for the test to check.
type tab struct {
	t        *testing.T
	ctx      context.Context
	mu       sync.Mutex
	problems []string
}

func newTab(t *testing.T, width, height int64) *tab {
	t.Helper()
	browserOnce.Do(startBrowser)
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	tb := &tab{t: t, ctx: ctx}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			// A refused request is logged by source "network"; the page shows those itself.
			if m.IsException() || (m.Type == chromedp.ConsoleError && m.Source != "network") {
				tb.mu.Lock()
				tb.problems = append(tb.problems, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line+1))
				tb.mu.Unlock()
			}
		}
	}()
	tb.run(chromedp.EmulateViewport(width, height))
	// Every later action of the test has a deadline; the tab's first run above has none, as
	// chromedp asks.
	tctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTimeout)
	tb.ctx = tctx
	return tb
}

func (tb *tab) run(actions ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	if err := chromedp.Do(tb.ctx, actions...); err != nil {
		tb.t.Fatal(err)
	}
}

// errors returns the page's errors so far.
func (tb *tab) errors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.problems...)
}

// eval runs a JavaScript expression in tb's page and returns its value.
func eval[T any](tb *tab, expression string) T {
	tb.t.Helper()
	v, err := chromedp.Run(tb.ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		tb.t.Fatalf("%s: %v", expression, err)
	}
	return v
}

// js quotes v for a script.
func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
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
	tb.t.Helper()
	before := tb.seq()
	tb.run(actions...)
	tb.waitLoaded(before, want)
}

// waitLoaded waits until the page finished a load after the before-th one and is in state want.
func (tb *tab) waitLoaded(before int, want string) {
	tb.t.Helper()
	var st struct{ State, Seq string }
	for {
		st = eval[struct{ State, Seq string }](tb, `({State: document.body.dataset.state, Seq: document.body.dataset.seq})`)
		var n int
		fmt.Sscan(st.Seq, &n)
		if n > before && st.State != "loading" {
			break
		}
		select {
		case <-tb.ctx.Done():
			tb.t.Fatalf("page still loading (state %s, load %s)", st.State, st.Seq)
		case <-time.After(40 * time.Millisecond):
		}
	}
	if st.State != want {
		msg := eval[string](tb, `document.getElementById('error').innerText + document.getElementById('signin-error').innerText`)
		tb.t.Fatalf("page state %s, want %s: %s", st.State, want, msg)
	}
}

// choose sets a form control's value as a person picking it would, firing its change event.
func choose(selector, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.querySelector(%s); e.value = %s;
		e.dispatchEvent(new Event('change', {bubbles: true})); })()`, js(selector), js(value)))
}

// requestBody is the JSON body the page sent for one of its queries (series, totals, table).
func (tb *tab) requestBody(name string) string {
	tb.t.Helper()
	body := eval[string](tb, fmt.Sprintf(`document.getElementById('request-' + %s)?.dataset.body || ''`, js(name)))
	if body == "" {
		tb.t.Fatalf("the page shows no %s request", name)
	}
	return body
}

// dataAttrs returns, for every element matching selector, its data-* attributes.
func (tb *tab) dataAttrs(selector string) []map[string]string {
	return eval[[]map[string]string](tb, fmt.Sprintf(`[...document.querySelectorAll(%s)].map((e) => Object.fromEntries(
		[...e.attributes].filter((a) => a.name.startsWith('data-')).map((a) => [a.name.slice(5), a.value])))`, js(selector)))
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
		return e && !e.closest('[hidden]') ? e.innerText : ''; })()`, js(selector)))
	return strings.TrimSpace(s)
}
