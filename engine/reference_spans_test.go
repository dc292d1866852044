package engine_test

import (
	"sort"
	"strings"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/facts"
)

// The reference's reading of the resolution rules (engine/README.md, "Resolutions"), written
// apart from the engine: ad metrics are known per hour at best, and on the days whose ad facts
// exist only per day (facts_daily_in) per day; a query that needs them is answered at hour or
// coarser, those days whole.

// adMetrics are the metrics whose value needs a measure the ad networks report (see evaluate's
// formulas).
var adMetrics = map[string]bool{"spend": true, "impressions": true, "clicks": true, "reach": true,
	"video_plays": true, "video_views_3s": true, "video_views_p75": true, "ctr": true, "cpc": true, "cpm": true,
	"frequency": true, "hook_rate": true, "hold_rate": true, "play_rate": true, "cta_rate": true, "roas": true,
	"roi": true, "profit": true, "cpa": true, "cpl": true}

var dayGrans = []string{"day", "week", "month", "quarter", "year"}
var subHourGrans = []string{"5min", "10min", "15min", "30min"}

// refFact is a fact with the table it landed in (raw, hour or day) and its local date.
type refFact struct {
	facts.Fact
	res string
	day time.Time // local date, midnight UTC
}

// refFacts lists the dataset's facts of project with where they landed.
func refFacts(ds *enginetest.Dataset, p *time.Location, projectID string) []refFact {
	var out []refFact
	local := func(t time.Time) time.Time {
		l := t.In(p)
		return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	}
	for res, facts := range map[string][]facts.Fact{"raw": ds.Facts, "hour": ds.HourFacts, "day": ds.DayFacts} {
		for _, f := range facts {
			if f.ProjectID != projectID {
				continue
			}
			rf := refFact{Fact: f, res: res, day: local(f.Time.Truncate(time.Minute))}
			if res == "day" {
				rf.day = f.Time
			}
			out = append(out, rf)
		}
	}
	return out
}

func needsAd(in engine.QueryInput) bool {
	for _, f := range in.Fields {
		if adMetrics[f] {
			return true
		}
	}
	for _, f := range in.Filters {
		if adMetrics[f.Member] {
			return true
		}
	}
	return false
}

func localDate(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
}

func dayAlignedRef(t time.Time, loc *time.Location) bool {
	return t.Equal(refDayStart(localDate(t, loc), loc))
}

// resolve applies the resolution rules to q: the table read (q.table: raw, hour or day), the
// granularity, the widened range and the day spans.
func resolve(ds *enginetest.Dataset, q refQuery) refQuery {
	q.asked = q.gran
	q.table = "raw"
	aligned := func(t time.Time) bool { return t.In(q.loc).Minute() == 0 && t.Second() == 0 }
	switch {
	case (q.gran == "" || in(q.gran, dayGrans)) && dayAlignedRef(q.start, q.loc) && dayAlignedRef(q.end, q.loc):
		q.table = "day"
		return q
	case !in(q.gran, subHourGrans) && aligned(q.start) && aligned(q.end):
		q.table = "hour"
	}
	if !needsAd(q.in) {
		return q
	}
	q.table = "hour"
	if in(q.gran, subHourGrans) {
		q.gran = "hour"
	}
	for !aligned(q.start) {
		q.start = q.start.Add(-time.Minute).Truncate(time.Minute)
	}
	for !aligned(q.end) {
		q.end = q.end.Add(time.Minute).Truncate(time.Minute)
	}
	names := entityNames(ds, q.scope.ProjectID)
	sums := map[time.Time]map[string]int64{}
	first, last := localDate(q.start, q.loc), localDate(q.end.Add(-time.Second), q.loc)
	for _, f := range refFacts(ds, q.loc, q.scope.ProjectID) {
		if f.res != "day" || f.day.Before(first) || f.day.After(last) || !inScope(f.Fact, q, names) {
			continue
		}
		s := sums[f.day]
		if s == nil {
			s = map[string]int64{}
			sums[f.day] = s
		}
		for k, v := range map[string]int64{"spend": f.Values[facts.Spend], "impressions": f.Values[facts.Impressions], "clicks": f.Values[facts.Clicks],
			"reach": f.Values[facts.Reach], "video_plays": f.Values[facts.VideoPlays], "video_views_3s": f.Values[facts.VideoViews3s], "video_views_p75": f.Values[facts.VideoViewsP75]} {
			s[k] += v
		}
	}
	q.spans = map[time.Time]bool{}
	for d, s := range sums {
		for _, v := range s {
			if v != 0 {
				q.spans[d] = true
			}
		}
	}
	if q.spans[first] && !dayAlignedRef(q.start, q.loc) {
		q.start = refDayStart(first, q.loc)
	}
	if q.spans[last] && !dayAlignedRef(q.end, q.loc) {
		q.end = refDayStart(last.AddDate(0, 0, 1), q.loc)
	}
	return q
}

// spanDates words the spans as the engine's warning does: runs of days, "first to last".
func spanDates(spans map[time.Time]bool) string {
	var days []time.Time
	for d := range spans {
		days = append(days, d)
	}
	sort.Slice(days, func(i, j int) bool { return days[i].Before(days[j]) })
	var parts []string
	for i := 0; i < len(days); {
		j := i
		for j+1 < len(days) && days[j+1].Equal(days[j].AddDate(0, 0, 1)) {
			j++
		}
		p := days[i].Format(time.DateOnly)
		if j > i {
			p += " to " + days[j].Format(time.DateOnly)
		}
		parts = append(parts, p)
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// place says whether the resolved query reads the fact, and its time bucket and granularity mark.
func place(f refFact, q refQuery) (ok bool, bucket time.Time, mark string) {
	first, last := localDate(q.start, q.loc), localDate(q.end.Add(-time.Second), q.loc)
	inDays := !f.day.Before(first) && !f.day.After(last)
	ts := f.Time.UTC().Truncate(time.Minute)
	switch {
	case q.table == "day":
		ok = inDays
	case q.spans[f.day]:
		ok = inDays
		if q.gran != "" && !in(q.gran, dayGrans) {
			return ok, refDayStart(f.day, q.loc), "day"
		}
	case f.res == "day" || (f.res == "hour" && q.table == "raw"):
		return false, bucket, ""
	default:
		ok = !ts.Before(q.start) && ts.Before(q.end)
	}
	if q.gran != "" {
		if in(q.gran, dayGrans) {
			bucket = bucketOf(f.day.Add(12*time.Hour), q.gran, time.UTC)
		} else {
			bucket = bucketOf(ts, q.gran, q.loc)
		}
	}
	if q.gran != q.asked {
		mark = q.gran
	}
	return ok, bucket, mark
}

// seriesBucket is the bucket of the series step t: its day's start on a span day.
func seriesBucket(t time.Time, q refQuery) (time.Time, string) {
	if d := localDate(t, q.loc); q.spans[d] && !in(q.gran, dayGrans) {
		return refDayStart(d, q.loc), "day"
	}
	mark := ""
	if q.gran != q.asked {
		mark = q.gran
	}
	return bucketOf(t, q.gran, q.loc), mark
}
