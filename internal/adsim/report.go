package adsim

import "sort"

// Reading metrics: accrue the final cells of the asked days, restate the days that are not final
// yet (so a read made during a day, or until RestateAfter after it, differs slightly from the
// final numbers), and sum cells into rows. Rows of every breakdown are sums of the same cells, so
// hourly rows add up to daily rows exactly, and a final read equals the truth.

// grouping says how cells are summed into rows.
type grouping struct {
	level  Level
	byDay  bool // one bucket per local day; otherwise one bucket for the whole range
	byHour bool // one bucket per local hour of day (0-23); a repeated hour on a DST day is merged
}

// row is one entity's metrics in one bucket.
type row struct {
	obj  *object // the entity at the grouping's level; nil at LevelAccount
	day  day     // the bucket's day; the range's first day when !byDay
	hour int     // local hour, or -1
	m    Metrics
}

// rows reads account a's metrics for local days [since, until] at now, as the network reports
// them (provisional where not final yet), or as the truth (final) when final is set. Rows with no
// delivery are left out, and rows come ordered by day, hour and the entity's listing order.
func (s *Sim) rows(a *account, since, until day, g grouping, now int64, final bool) []row {
	s.mu.RLock()
	cells := s.accrue(a, a.dayStart(since), a.dayStart(until+1), now)
	s.mu.RUnlock()
	if !final {
		s.restate(cells, now)
	}
	type key struct {
		ord  int
		day  day
		hour int
	}
	at := map[key]int{}
	var out []row
	for _, c := range cells {
		obj := c.ad.ancestor(g.level)
		k := key{ord: -1, day: since, hour: -1}
		if obj != nil {
			k.ord = obj.ord
		}
		if g.byDay {
			k.day = c.day
		}
		if g.byHour {
			k.hour = c.lh
		}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, row{obj: obj, day: k.day, hour: k.hour})
		}
		out[i].m.Add(c.m)
	}
	kept := out[:0]
	for _, r := range out {
		if !r.m.IsZero() {
			kept = append(kept, r)
		}
	}
	sort.Slice(kept, func(i, j int) bool {
		x, y := kept[i], kept[j]
		if x.day != y.day {
			return x.day < y.day
		}
		if x.hour != y.hour {
			return x.hour < y.hour
		}
		return ordOf(x.obj) < ordOf(y.obj)
	})
	return kept
}

func ordOf(o *object) int {
	if o == nil {
		return -1
	}
	return o.ord
}

// isFinal reports whether local day d of account a is restated already at now.
func (s *Sim) isFinal(a *account, d day, now int64) bool {
	return now >= a.dayStart(d+1)+int64(s.cfg.RestateAfter.Seconds())
}

// restate replaces, in place, the final cells of days that are not final at now by provisional
// ones. cells are ordered by ad, then hour.
func (s *Sim) restate(cells []cell, now int64) {
	for i := 0; i < len(cells); {
		j := i + 1
		for j < len(cells) && cells[j].ad == cells[i].ad && cells[j].day == cells[i].day {
			j++
		}
		if !s.isFinal(cells[i].ad.acct, cells[i].day, now) {
			s.restateRun(cells[i:j])
		}
		i = j
	}
}

// restateRun turns one ad's cells of one day into provisional numbers. Spend is reported 0.08% to
// 0.6% low (the final number is never above what the budget allowed); counts 0.1% to 0.5% high
// or low. The factor applies to the day's running totals, so that provisional hours still sum to
// the provisional day and a small hour is not left unchanged by rounding.
func (s *Sim) restateRun(run []cell) {
	h := mix(uint64(s.cfg.Seed), run[0].ad.key, uint64(run[0].day), 4)
	spendD := between(h, 8, 60)
	countD := between(h>>16, 10, 50)
	if h>>63 == 1 {
		countD = -countD
	}
	shave := func(x, d int64) int64 { return x - x*d/10000 }
	var fin, prev Metrics
	for i := range run {
		fin.Add(run[i].m)
		next := Metrics{
			Spend:         shave(fin.Spend, spendD),
			Impressions:   shave(fin.Impressions, countD),
			Clicks:        shave(fin.Clicks, countD),
			Reach:         shave(fin.Reach, countD),
			VideoPlays:    shave(fin.VideoPlays, countD),
			VideoViews3s:  shave(fin.VideoViews3s, countD),
			VideoViewsP75: shave(fin.VideoViewsP75, countD),
		}
		run[i].m = Metrics{
			Spend:         next.Spend - prev.Spend,
			Impressions:   next.Impressions - prev.Impressions,
			Clicks:        next.Clicks - prev.Clicks,
			Reach:         next.Reach - prev.Reach,
			VideoPlays:    next.VideoPlays - prev.VideoPlays,
			VideoViews3s:  next.VideoViews3s - prev.VideoViews3s,
			VideoViewsP75: next.VideoViewsP75 - prev.VideoViewsP75,
		}
		prev = next
	}
}
