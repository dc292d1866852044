package tag_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"mtk/internal/browsertest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Stop()
	os.Exit(code)
}

// shopper is a browser tab on the test's shop.
type shopper struct {
	*browsertest.Tab
	s *site
}

// open loads url and waits until the tag runs.
func (b *shopper) open(url string) {
	b.T.Helper()
	b.Run(chromedp.Navigate(url))
	b.waitFor(`window.mtk && typeof window.mtk.push === 'function' && !Array.isArray(window.mtk)`)
}

// waitFor polls a JavaScript condition for up to 30 seconds.
func (b *shopper) waitFor(expr string) {
	b.T.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !browsertest.Eval[bool](b.Tab, "!!("+expr+")") {
		if time.Now().After(deadline) {
			b.T.Fatalf("still not %s", expr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// delivered waits until the tag's queue is empty: every firing so far was answered.
func (b *shopper) delivered() {
	b.T.Helper()
	b.waitFor(`(localStorage.getItem('_mtk_q') || '[]') === '[]'`)
}

// do runs statements in the page.
func (b *shopper) do(js string) {
	b.T.Helper()
	browsertest.Eval[bool](b.Tab, "(() => { "+js+"; return true; })()")
}

// hover moves the mouse over the first element matching sel.
func (b *shopper) hover(sel string) {
	b.T.Helper()
	r := browsertest.Eval[struct{ X, Y float64 }](b.Tab, fmt.Sprintf(`(() => { const r = document.querySelector(%s).getBoundingClientRect();
		return {X: r.left + r.width / 2, Y: r.top + r.height / 2}; })()`, browsertest.JS(sel)))
	b.Run(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, r.X, r.Y))
}

// clean checks that the page raised no CSP violation and logged no error.
func (b *shopper) clean() {
	b.T.Helper()
	if v := browsertest.Eval[[]string](b.Tab, `window.cspViolations || []`); len(v) > 0 {
		b.T.Errorf("CSP violations: %v", v)
	}
	if errs := b.Errors(); len(errs) > 0 {
		b.T.Errorf("console errors: %v", errs)
	}
}

// TestTagInChromium runs the shop's pages in Chromium, with the tag loaded under a strict CSP:
// every trigger type fires exactly as configured and never otherwise, across full loads and SPA
// navigation, with the session's UTM and the form's lead; a 503 and a page unloading mid-batch
// lose nothing and double nothing; with consent required nothing is sent or written before it.
func TestTagInChromium(t *testing.T) {
	s := newSite(t)
	b := &shopper{Tab: browsertest.NewTab(t, 1000, 700), s: s}

	b.open(s.shop + "/shop?utm_source=alpha&utm_campaign=spring&fbclid=FB123")
	b.Run(chromedp.Click(chromedp.ID("buy")), chromedp.Click(chromedp.ID("buy")))
	b.hover(".card")
	time.Sleep(1500 * time.Millisecond) // the visitor's dwell over the card is what fires hover_card (1 s)
	b.hover("#other")                   // below hover_long's 60 seconds
	time.Sleep(300 * time.Millisecond)  // a short dwell, which must fire nothing
	b.Run(chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, 900, 5))
	b.do(`const c = document.createElement('canvas'); c.getContext('2d').fillRect(0, 0, 1, 1);
		const v = document.getElementById('promo'); v.srcObject = c.captureStream(5); v.play()`)
	b.waitFor(`document.getElementById('promo').currentTime > 1.6`)
	b.do(`document.getElementById('promo').pause()`)
	b.do(`window.scrollTo(0, document.documentElement.scrollHeight * 0.6 - innerHeight)`)
	time.Sleep(300 * time.Millisecond)
	b.do(`window.scrollTo(0, document.documentElement.scrollHeight)`)
	time.Sleep(300 * time.Millisecond)
	// SPA navigation: a new URL is a page; the same URL again, or another hash, is not.
	b.do(`history.pushState({}, '', '/product/42'); history.pushState({}, '', '/product/42');
		history.replaceState({}, '', '/product/42#reviews')`)
	b.delivered()
	b.clean()

	// The server answers 503 three times: the firings are retried with their ids.
	s.proxy.failNext(3)
	b.open(s.shop + "/long")
	time.Sleep(2500 * time.Millisecond) // the time on the page is what fires dur_2 (2 s)
	b.Run(chromedp.Click(chromedp.ID("buy")))
	b.delivered()
	b.clean()
	s.proxy.answered503(t)

	// A page unloading mid-batch (its beacon refused): the next page delivers the firing.
	s.proxy.failNext(1)
	b.Run(chromedp.Click(chromedp.ID("buy")))
	b.open(s.shop + "/shop")
	b.delivered()
	s.proxy.answered503(t)

	// The form gives the lead; its page and the next carry it.
	b.do(`document.querySelector('[name=email]').value = 'Ana@Example.com';
		document.querySelector('[name=whatsapp]').value = '+55 11 91234-5678'`)
	b.Run(chromedp.Click(chromedp.ID("send")))
	b.waitFor(`location.pathname === '/thanks' && window.mtk && !Array.isArray(window.mtk)`)
	b.do(`mtk.push(['track', 'Manual', {value: 129.9, currency: 'BRL', plan: 'pro'}])`)
	b.delivered()
	b.clean()

	s.drain()
	got := s.counts("shop.localhost")
	want := map[string]int{"pv_all": 5, "pv_shop": 2, "pv_product": 1, "dur_2": 1, "click_buy": 4, "click_session": 1,
		"view_banner": 1, "hover_card": 1, "form": 1, "scroll_50": 1, "video_1": 1, "Manual": 1}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events by name %v, want %v (once each)", got, want)
	}
	t.Logf("events by name: %v", got)
	s.checkEvents(t)

	t.Run("consent", func(t *testing.T) {
		c := &shopper{Tab: browsertest.NewTab(t, 1000, 700), s: s}
		c.open(s.consent + "/shop?utm_source=beta")
		c.Run(chromedp.Click(chromedp.ID("buy")))
		// What must not happen has no condition to wait on: give the tag more than its 1 s flush
		// interval, in which a click it queued would have been sent.
		time.Sleep(1500 * time.Millisecond)
		if n := s.proxy.postsFrom(s.consent); n != 0 {
			t.Fatalf("%d event posts before consent", n)
		}
		if w := browsertest.Eval[string](c.Tab, `document.cookie + '|' + localStorage.length + '|' + sessionStorage.length`); w != "|0|0" {
			t.Fatalf("written before consent: %s", w)
		}
		c.do(`mtk.push(['consent', 'granted'])`)
		c.delivered()
		if !strings.Contains(browsertest.Eval[string](c.Tab, `document.cookie`), "_mtk_lead=") {
			t.Fatal("no lead key cookie after consent")
		}
		c.clean()
		s.drain()
		if got := s.counts("consent.localhost"); fmt.Sprint(got) != fmt.Sprint(map[string]int{"click_buy": 1}) {
			t.Fatalf("events %v", got)
		}
	})
}
