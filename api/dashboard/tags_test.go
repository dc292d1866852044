package dashboard_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The Tags view on a phone: the owner signs in, sees the container's install line, makes a
// form_submit trigger with a condition in the editor, sees it listed with no firing, and after
// an event of its name sees its 24-hour count; the page never scrolls sideways.
func TestTagsView(t *testing.T) {
	f := startServer(t)
	tb := newTab(t, 390, 844)
	tb.Run(chromedp.Navigate(f.url + "/dashboard"))
	tb.waitLoaded(-1, "signed-out")
	tb.act("ready", chromedp.SendKeys(chromedp.ID("signin-email"), f.email),
		chromedp.SendKeys(chromedp.ID("signin-pass"), f.password), chromedp.Click(chromedp.ID("signin-submit")))
	tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="tags"]`)))
	if line := tb.text("#tags-install"); !strings.HasPrefix(line, `<script async src="http://127.0.0.1/t/MTK-`) || !strings.HasSuffix(line, `.js"></script>`) {
		t.Fatalf("install line %q", line)
	}
	if shown := eval[[]string](tb, `['#kpis', '.toolbar', '.summary-line', '.requests', '#tags'].filter((s) => document.querySelector(s).offsetParent)`); len(shown) != 1 {
		t.Fatalf("shown under Tags: %v", shown)
	}
	tb.checkFits()

	tb.Run(chromedp.Click(chromedp.ID("tags-new")), choose("#te-type", "form_submit"),
		chromedp.SendKeys(chromedp.ID("te-name"), "Sign-up form"), chromedp.SendKeys(chromedp.ID("te-event"), "signup"),
		choose("#te-alpha", "Lead"), chromedp.SendKeys(chromedp.ID("te-selector"), "#signup"),
		chromedp.Click(chromedp.ID("te-add-condition")))
	if shown := eval[[]string](tb, `['#te-field-percent', '#te-field-keyword', '#te-field-selector', '#te-field-fire'].filter((s) => document.querySelector(s).offsetParent)`); strings.Join(shown, " ") != "#te-field-selector #te-field-fire" {
		t.Fatal("the editor shows the members of another type")
	}
	tb.Run(choose("#te-conditions .cond-operator", "startsWith"), chromedp.SendKeys(chromedp.CSS("#te-conditions .cond-value"), "/signup"))
	tb.checkFits()
	tb.act("ready", chromedp.Click(chromedp.ID("te-save")))
	if tb.text("#tags-editor") != "" {
		t.Fatalf("the editor stays open: %s", tb.text("#te-error"))
	}
	item := `#tags-triggers .trigger`
	if got := tb.text(item); !strings.Contains(got, "Sign-up form") || !strings.Contains(got, "signup → Lead · page_path startsWith /signup · #signup") ||
		!strings.Contains(got, "0 in 24 h") || !strings.Contains(got, "last fired never") {
		t.Fatalf("listed trigger %q", got)
	}
	tb.checkFits()

	// An event of the trigger's name, as the tag sends it, counts once stored.
	if status, body := f.post("/v3/tracking/events", "", map[string]any{"domain": f.domain, "source": "website",
		"config": map[string]any{"name": "signup"}, "page": map[string]any{"url": "https://" + f.domain + "/signup"}}); status != 200 {
		t.Fatalf("event: %d %s", status, body)
	}
	f.drain()
	tb.act("ready", chromedp.Click(chromedp.CSS(`[data-page="tags"]`)))
	if got := tb.text(item); !strings.Contains(got, "1 in 24 h") || strings.Contains(got, "last fired never") {
		t.Fatalf("after one event: %q", got)
	}
	if n := eval[string](tb, fmt.Sprintf(`document.querySelector(%q).dataset.count`, item)); n != "1" {
		t.Fatalf("data-count %s", n)
	}
}
