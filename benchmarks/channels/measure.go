package main

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/facts"
)

// column is one model with one touch set: reported has the touch set of the view it is asked in.
type column struct{ model, touches string }

func (c column) String() string {
	if c.model == engine.ModelReported {
		return c.model
	}
	return c.model + "/" + c.touches
}

// columns are reported, then every crediting model with each touch set.
func columns() []column {
	out := []column{{engine.ModelReported, ""}}
	for _, m := range facts.CreditModels {
		for _, s := range facts.TouchSets {
			out = append(out, column{m, s})
		}
	}
	return out
}

// measured is what one run found: per column, the traffic view by utm_source and its total, the
// ad view's campaign rows and its total, the traffic query's median db time; and the failed
// checks.
type measured struct {
	cols     []column
	bySource []answer
	traffic  []sums
	adRows   []sums
	adTotal  []sums
	db       []time.Duration
	failures []string
}

// attribution is the column's metadata.attribution (reported names no set: each view its own).
func (c column) attribution() map[string]any {
	a := map[string]any{"model": c.model}
	if c.model != engine.ModelReported {
		a["touches"] = c.touches
	}
	return a
}

func measure(ctx context.Context, c *demoClient, runs int) (*measured, error) {
	m := &measured{cols: columns()}
	for _, col := range m.cols {
		var times []time.Duration
		var by answer
		for range max(runs, 1) {
			a, err := c.query(ctx, map[string]any{"dimensions": []string{"utm_source"}, "attribution": col.attribution()}, "utm_source")
			if err != nil {
				return nil, err
			}
			by = a
			times = append(times, a.db)
		}
		slices.Sort(times)
		tot, err := c.query(ctx, map[string]any{"dimensions": []string{}, "attribution": col.attribution()}, "")
		if err != nil {
			return nil, err
		}
		ads, err := c.query(ctx, map[string]any{"level": "campaign", "attribution": col.attribution()}, "campaign_id")
		if err != nil {
			return nil, err
		}
		adTot, err := c.query(ctx, map[string]any{"attribution": col.attribution()}, "")
		if err != nil {
			return nil, err
		}
		for _, v := range []struct {
			a    answer
			want string
		}{{by, engine.ViewTraffic}, {tot, engine.ViewTraffic}, {ads, engine.ViewAds}, {adTot, engine.ViewAds}} {
			if v.a.view != v.want {
				m.fail("%s: view %q, want %q", col, v.a.view, v.want)
			}
		}
		m.bySource, m.traffic = append(m.bySource, by), append(m.traffic, tot.total())
		m.adRows, m.adTotal = append(m.adRows, ads.total()), append(m.adTotal, adTot.total())
		m.db = append(m.db, times[len(times)/2])
		m.check(col.String()+": utm_source rows against the traffic total", by.total(), tot.total(), len(by.rows))
		m.check(col.String()+": the traffic total against reported's", tot.total(), m.traffic[0], 1)
		m.check(col.String()+": campaign rows against the ad view's total", ads.total(), adTot.total(), len(ads.rows))
	}
	return m, nil
}

// check records a failure unless got is want: money to the cent, counts within the rounding of
// rows counts to 4 decimals each.
func (m *measured) check(what string, got, want sums, rows int) {
	if !got[0].Equal(want[0]) || got[1].Sub(want[1]).Abs().GreaterThan(decimal.New(int64(rows)*5, -5)) {
		m.fail("%s: %s (%s orders), want %s (%s)", what, got[0].StringFixed(2), got[1], want[0].StringFixed(2), want[1])
	}
}

func (m *measured) fail(format string, args ...any) {
	m.failures = append(m.failures, fmt.Sprintf(format, args...))
}
