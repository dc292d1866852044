// Package browsertest runs one shared headless Chromium for a test binary and opens a tab of it
// for each test that drives a page. The browser is Debian's package at /usr/bin/chromium
// (`scripts/services.sh chromium` or `make browser` installs it); without it the tests fail, they
// never skip. It starts with the first NewTab; the package's TestMain calls Stop after m.Run.
package browsertest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium is Debian's package (`scripts/services.sh chromium` installs it).
const chromium = "/usr/bin/chromium"

// One headless Chromium serves every test of the binary: each test opens its own tab.
var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
	stopBrowser = func() {}
)

// Stop stops the shared browser, if it started. Call it from TestMain after m.Run.
func Stop() { stopBrowser() }

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

// Tab is one browser tab of a test. It records the page's uncaught exceptions and its console
// errors (a load that the CSP blocked, say) for the test to check with Errors.
type Tab struct {
	T   *testing.T
	Ctx context.Context // the tab's context, with the test's deadline

	mu       sync.Mutex
	problems []string
}

// NewTab opens a tab of width×height in the shared browser, starting the browser on first use.
// The tab, in a browser context of its own, closes when t ends; every action after the
// viewport's has a 3-minute deadline.
func NewTab(t *testing.T, width, height int64) *Tab {
	t.Helper()
	browserOnce.Do(startBrowser)
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	// A browser context of its own keeps the tab's cookies and storage from other tests, and its
	// disposal when t ends closes the tab's connections: a server that t stops after the tab
	// does not wait for a keep-alive connection that Chromium would otherwise hold open.
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	tb := &Tab{T: t, Ctx: ctx}
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
	tb.Run(chromedp.EmulateViewport(width, height))
	// Every later action of the test has a deadline; the tab's first run above has none, as
	// chromedp asks.
	tctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelTimeout)
	tb.Ctx = tctx
	return tb
}

// NewContext opens a bare tab in the shared browser, for a benchmark that drives chromedp
// itself; the tab, in a browser context of its own, closes with cancel (at the latest when tb
// ends).
func NewContext(tb testing.TB) (context.Context, context.CancelFunc) {
	tb.Helper()
	browserOnce.Do(startBrowser)
	if browserErr != nil {
		tb.Fatal(browserErr)
	}
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithNewBrowserContext())
	tb.Cleanup(cancel)
	return ctx, cancel
}

// Run runs actions in the tab and fails the test on an error.
func (tb *Tab) Run(actions ...chromedp.Action[chromedp.Void]) {
	tb.T.Helper()
	if err := chromedp.Do(tb.Ctx, actions...); err != nil {
		tb.T.Fatal(err)
	}
}

// Errors returns the page's errors so far: its uncaught exceptions and its console errors, but
// not the network's (a refused request, which a page shows itself).
func (tb *Tab) Errors() []string {
	tb.mu.Lock()
	defer tb.mu.Unlock()
	return append([]string(nil), tb.problems...)
}

// Eval runs a JavaScript expression in tb's page and returns its value; an error fails the test.
func Eval[T any](tb *Tab, expression string) T {
	tb.T.Helper()
	v, err := chromedp.Run(tb.Ctx, chromedp.Evaluate[T](expression))
	if err != nil {
		tb.T.Fatalf("%s: %v", expression, err)
	}
	return v
}

// JS quotes v for a script (as JSON).
func JS(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
