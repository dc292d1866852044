package adsim

import (
	"slices"
	"sort"
)

// Accrual: the final (post-restatement) metrics of every ad in every hour, computed from nothing
// but the seed, the object tree, the status/budget histories and now. Spend is planned per budget
// owner (the campaign or ad set that holds the budget) and hour, split among the owner's ads, and
// kept only for the seconds an ad and all its ancestors are live; the other metrics follow from
// the spend through each ad's rates. Sums of any breakdown are sums of these integer cells.

// cell is one ad's final metrics in one hour.
type cell struct {
	ad   *object
	hour int64 // Unix second the hour starts
	day  day   // local day of the hour
	lh   int   // local hour, 0-23
	m    Metrics
}

// accrue returns the cells of account a with metrics in [from, to) (local day starts) up to now,
// ordered by ad, then hour. The caller holds s.mu for reading.
func (s *Sim) accrue(a *account, from, to, now int64) []cell {
	var out []cell
	limit := min(to, now)
	for _, o := range a.owners {
		out = s.accrueOwner(o, from, limit, now, out)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].ad != out[j].ad {
			return out[i].ad.ord < out[j].ad.ord
		}
		return out[i].hour < out[j].hour
	})
	return out
}

// accrueOwner appends the cells of owner o's ads for the hours in [from, limit). A daily budget
// caps each local day; a lifetime budget caps its whole flight, so that is computed from the
// flight's start whatever from is.
func (s *Sim) accrueOwner(o *object, from, limit, now int64, out []cell) []cell {
	first := hourFloor(o.start)
	if len(o.ads) == 0 || first >= limit {
		return out
	}
	spends := make([]int64, len(o.ads))
	if o.budget == BudgetLifetime {
		var cum int64
		for h := first; h < min(o.end, limit); h += 3600 {
			cum += s.ownerHour(o, h, o.flightW, lifetimePace, now, cum, spends)
			if h >= from {
				out = s.emit(o, h, spends, out)
			}
		}
		return out
	}
	a := o.acct
	d, _ := a.localOf(max(from, first))
	for ; a.dayStart(d) < limit; d++ {
		hs, he := a.dayStart(d), a.dayStart(d+1)
		var w int64
		for h := hs; h < he; h += 3600 {
			w += s.weight(o, h)
		}
		pace := s.dailyPace(o, d)
		var cum int64
		for h := max(hs, first); h < min(he, limit); h += 3600 {
			cum += s.ownerHour(o, h, w, pace, now, cum, spends)
			out = s.emit(o, h, spends, out)
		}
	}
	return out
}

// ownerHour fills spends with what each of o's ads spends in hour h before now and returns their
// total. The hour is cut where o's budget changes; in each piece the owner's plan runs at pace ×
// budget × the hour's weight / the period's weight w per hour; an ad spends its share of the plan
// only for the seconds it is live; and the piece never takes the period's spend (cum) above the
// budget in force. Each piece depends only on what happened before its end, so a change never
// alters spend that accrued before it.
func (s *Sim) ownerHour(o *object, h, w, pace, now, cum int64, spends []int64) int64 {
	end := min(h+3600, now)
	rate := pace * s.weight(o, h)
	var sumW int64
	for i, ad := range o.ads {
		sumW += s.adWeight(ad, h)
		spends[i] = 0
	}
	piece := make([]int64, len(o.ads))
	var total int64
	for t0 := h; t0 < end; {
		t1 := o.nextBudgetChange(t0, end)
		b := o.budgetAt(t0)
		var sum int64
		for i, ad := range o.ads {
			x := mulDiv(b*activeSeconds(ad, t0, t1), rate, 1000*w) // minor units × seconds
			piece[i] = mulDiv(x, s.adWeight(ad, h), 3600*sumW)
			sum += piece[i]
		}
		if room := max(b-cum-total, 0); sum > room {
			capped := int64(0)
			for i := range piece {
				piece[i] = mulDiv(piece[i], room, sum)
				capped += piece[i]
			}
			sum = capped
		}
		for i := range piece {
			spends[i] += piece[i]
		}
		total += sum
		t0 = t1
	}
	return total
}

// nextBudgetChange is the first time after t at which o's budget changes, or limit.
func (o *object) nextBudgetChange(t, limit int64) int64 {
	for _, c := range o.budgets {
		if c.at > t && c.at < limit {
			return c.at
		}
	}
	return limit
}

// activeSeconds is how many seconds of [from, to) ad o and all its ancestors are live.
func activeSeconds(o *object, from, to int64) int64 {
	if to <= from {
		return 0
	}
	var buf [16]int64
	cuts := buf[:0]
	add := func(t int64) {
		if t > from && t < to {
			cuts = append(cuts, t)
		}
	}
	for x := o; x != nil; x = x.parent {
		add(x.start)
		if x.end != 0 {
			add(x.end)
		}
		for _, c := range x.statuses {
			add(c.at)
		}
	}
	if len(cuts) == 0 {
		if o.liveAt(from) {
			return to - from
		}
		return 0
	}
	slices.Sort(cuts)
	cuts = append(cuts, to)
	var live int64
	t := from
	for _, c := range cuts {
		if c > t && o.liveAt(t) {
			live += c - t
		}
		t = c
	}
	return live
}

// emit appends a cell for each ad of o that spent in hour h.
func (s *Sim) emit(o *object, h int64, spends []int64, out []cell) []cell {
	for i, sp := range spends {
		if sp == 0 {
			continue
		}
		ad := o.ads[i]
		d, lh := ad.acct.localOf(h)
		out = append(out, cell{ad: ad, hour: h, day: d, lh: lh, m: s.derive(ad, h, sp)})
	}
	return out
}

// derive computes an ad's other metrics in hour h from its spend there. Each ratio is applied
// with stochastic rounding (floor of value + uniform noise), so small hours are not all zero and
// large sums are unbiased; each count is bounded by the one it derives from.
func (s *Sim) derive(ad *object, h, spend int64) Metrics {
	r := ad.rates
	base := mix(uint64(s.cfg.Seed), ad.key, uint64(h))
	noise := func(i uint64, n int64) int64 { return int64(mix(base, i) % uint64(n)) }
	const ppm = 1000000
	cpm := r.cpm * between(mix(base, 0), 850, 1150) / 1000
	m := Metrics{Spend: spend}
	m.Impressions = (spend*1000 + noise(1, cpm)) / cpm
	m.Clicks = (m.Impressions*r.ctr + noise(2, ppm)) / ppm
	m.VideoPlays = (m.Impressions*r.play + noise(3, ppm)) / ppm
	m.VideoViews3s = (m.VideoPlays*r.view3s + noise(4, ppm)) / ppm
	m.VideoViewsP75 = (m.VideoViews3s*r.p75 + noise(5, ppm)) / ppm
	if r.reach > 0 {
		m.Reach = (m.Impressions*r.reach + noise(6, ppm)) / ppm
	}
	return m
}
