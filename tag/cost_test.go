package tag_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/performance"
	"github.com/chromedp/chromedp"

	"mtk/internal/browsertest"
	"mtk/tag"
)

// BenchmarkTagCost measures what the tag costs a shop: its size on the wire (the shop
// container's script, 16 triggers, gzipped) and the main-thread time of a page load in
// Chromium with it, against the same page without it (Performance.getMetrics: ScriptDuration,
// the time in JavaScript, and TaskDuration, all main-thread tasks), as medians per load.
//
//	go test ./tag -run XXX -bench TagCost -benchtime 20x
func BenchmarkTagCost(b *testing.B) {
	s := newSite(b)
	req, _ := http.NewRequest("GET", s.mtk+tag.Path(s.codes["shop.localhost"]), nil)
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		b.Fatal(err)
	}
	gz, _ := io.ReadAll(resp.Body)
	resp.Body.Close()

	// metric loads url in a fresh tab, waits for its load event (which the async tag delays until
	// it ran) and the tag's first flush, and reads the tab's counters, which start at zero.
	metric := func(url string) (script, task float64) {
		ctx, cancel := browsertest.NewContext(b)
		defer cancel()
		m := map[string]float64{}
		err := chromedp.Do(ctx, chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, performance.Enable, performance.EnableParams{})
			return err
		}), chromedp.Navigate(url), chromedp.Sleep(300*time.Millisecond), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			r, err := cdp.Call(ctx, t, performance.GetMetrics, cdp.Empty{})
			for _, x := range r.Metrics {
				m[x.Name] = x.Value
			}
			return err
		}))
		if err != nil {
			b.Fatal(err)
		}
		return m["ScriptDuration"] * 1000, m["TaskDuration"] * 1000
	}
	var withScript, withTask, baseScript, baseTask []float64
	b.ResetTimer()
	for range b.N {
		sc, tk := metric(s.shop + "/bench")
		withScript, withTask = append(withScript, sc), append(withTask, tk)
		sc, tk = metric(s.shop + "/bench?notag")
		baseScript, baseTask = append(baseScript, sc), append(baseTask, tk)
	}
	b.StopTimer()
	b.ReportMetric(float64(len(gz)), "gzip-B")
	b.ReportMetric(median(withScript)-median(baseScript), "tag-script-ms/load")
	b.ReportMetric(median(withTask)-median(baseTask), "tag-task-ms/load")
	b.ReportMetric(median(withScript), "page+tag-script-ms/load")
	b.ReportMetric(median(baseScript), "page-script-ms/load")
}

func median(v []float64) float64 {
	v = slices.Sorted(slices.Values(v))
	return v[len(v)/2]
}
