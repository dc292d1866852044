package engine

import (
	"fmt"
	"strings"
	"time"

	"mtk/facts"
)

// Ad networks report metrics per hour at best, and per day only for older days: sync writes
// today's figures as differences between runs (facts_raw, at the minute a run saw them), the
// last days per hour (facts_hourly_in) and days before that per day (facts_daily_in, see
// adsync's plan). Events and orders are known to the minute. So a query that needs an ad measure
// is answered at hour or coarser, and the local days on which the scope's ad facts exist only per
// day (its day spans) are answered as whole days from the daily table: every fact is counted
// once, at the finest resolution its span truly has.

// daySpan is a run of consecutive local dates [first, after), as civil dates (midnight UTC).
type daySpan struct{ first, after time.Time }

// daySpans are a plan's day spans, in order.
type daySpans []daySpan

// spansOf merges sorted local dates into runs.
func spansOf(days []time.Time) daySpans {
	var out daySpans
	for _, d := range days {
		d = facts.LocalDay(d, time.UTC)
		if n := len(out); n > 0 && out[n-1].after.Equal(d) {
			out[n-1].after = d.AddDate(0, 0, 1)
			continue
		}
		out = append(out, daySpan{first: d, after: d.AddDate(0, 0, 1)})
	}
	return out
}

// has reports whether the local date day (a civil date) lies in a span.
func (s daySpans) has(day time.Time) bool {
	for _, r := range s {
		if !day.Before(r.first) && day.Before(r.after) {
			return true
		}
	}
	return false
}

// cond is the SQL condition that the Date expression date lies in a span.
func (s daySpans) cond(date string) fragment {
	parts := make([]fragment, len(s))
	for i, r := range s {
		parts[i] = expr("("+date+" >= toDate(?) AND "+date+" < toDate(?))", r.first.Format(time.DateOnly), r.after.Format(time.DateOnly))
	}
	return expr("(?)", join(" OR ", parts...))
}

// String words the spans' dates: "2024-03-01", "2024-03-01 to 2024-03-05", joined by commas.
func (s daySpans) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		last := r.after.AddDate(0, 0, -1)
		parts[i] = r.first.Format(time.DateOnly)
		if last.After(r.first) {
			parts[i] += " to " + last.Format(time.DateOnly)
		}
	}
	return strings.Join(parts, ", ")
}

// hourOnly moves a plan that needs an ad measure off facts_raw, whose ad facts stand at the
// minute a sync saw them, not when they happened: onto the hourly table, at hour granularity for
// a sub-hour one, with the range widened to whole hours. The widening is not worth a warning
// where it only reaches past now, where nothing is stored yet.
func (p *plan) hourOnly(now time.Time) []string {
	if !p.measures.anyAd() || p.table != tableRaw {
		return nil
	}
	p.table = tableHourly
	var w []string
	if p.gran != nil && p.gran.subHour {
		h := granularities["hour"]
		p.gran = &h
		w = append(w, "ad metrics are known per hour at best; answered from the hourly table at hour granularity")
	}
	start, end := facts.HourStart(p.start, p.loc), facts.HourStart(p.end, p.loc)
	if end.Before(p.end) {
		end = end.Add(time.Hour)
	}
	if start.Before(p.start) || (end.After(p.end) && p.end.Before(now)) {
		w = append(w, "ad metrics are known per hour at best; the range was widened to whole hours")
	}
	p.start, p.end = start, end
	return w
}

// needsSpans reports whether the plan's answer depends on its day spans: it needs an ad measure
// and reads a table finer than the daily one.
func (p *plan) needsSpans() bool { return p.measures.anyAd() && p.table != tableDaily }

// spansStatement lists the local days of the range on which the scope's ad facts exist only per
// day: the days whose facts_daily_in rows (sync's record of what it wrote per day) keep a
// non-zero ad measure under the query's filters. A day that sync later rewrote per hour holds
// its day rows and their negation, which sum to zero, so it is not a span.
func (p *plan) spansStatement() Statement {
	return expr("? ORDER BY day", p.spanDays()).statement()
}

// spanDays is spansStatement's rows, unordered.
func (p *plan) spanDays() fragment {
	first, after := dayRange(p.start, p.end, p.loc)
	where := append([]fragment{expr("project_id = ?", p.projectID),
		expr("day >= toDate(?) AND day < toDate(?)", first.Format(time.DateOnly), after.Format(time.DateOnly))}, p.scopeFilters(tableDaily)...)
	var having []string
	for _, m := range measures {
		if m.ad && m.expr == "" {
			having = append(having, "sum("+m.name+") != 0")
		}
	}
	return expr("SELECT day FROM "+string(facts.LandingDaily)+" WHERE ? GROUP BY day HAVING "+strings.Join(having, " OR "),
		join(" AND ", where...))
}

// spanCheckColumn is the column by which the answer's own statement reads the day spans
// (plan.spanCheck): spansStatement's days as one sorted array, a scalar subquery that ClickHouse
// runs once per statement (on ClickHouse 18.16 as on current ones), so that the usual answer,
// without spans, takes one statement instead of two.
func (p *plan) spanCheckColumn() fragment {
	return expr("(SELECT arraySort(groupArray(day)) FROM (?)) AS span_days", p.spanDays())
}

// withSpans sets the plan's day spans and widens its range to the whole days of the spans at its
// edges. The warnings name the spans and the widening.
func (p *plan) withSpans(s daySpans) []string {
	p.spans = s
	var w []string
	if p.gran != nil && !p.gran.dayBased {
		w = append(w, fmt.Sprintf("ad metrics of %s are known per day only; answered from the daily table at day "+
			"granularity on those days", s))
	}
	widened := false
	if first := facts.LocalDay(p.start, p.loc); s.has(first) && !dayAligned(p.start, p.loc) {
		p.start, widened = DayStart(first, p.loc), true
	}
	if last := facts.LocalDay(p.end.Add(-time.Second), p.loc); s.has(last) && !dayAligned(p.end, p.loc) {
		p.end, widened = DayStart(last.AddDate(0, 0, 1), p.loc), true
	}
	if widened {
		w = append(w, "ad metrics known per day only; the range was widened to whole days")
	}
	return w
}

// spanBranches is the first aggregation of a plan with day spans: the spans' days from the daily
// table, at a day bucket, and the rest of the range from the plan's table.
func (p *plan) spanBranches() fragment {
	daily := p.aggregate(tableDaily, p.spans.cond("day"))
	finer := p.aggregate(p.table, expr("? AND NOT ?", p.table.timeFilter(p.start, p.end, p.loc), p.spans.cond("day")))
	return expr("? UNION ALL ?", daily, finer)
}

// daySpanBucket is the bucket of a day span's row in a series finer than a day: the instant its
// local day starts, as the series computes it.
func (p *plan) daySpanBucket(day string) string {
	return "toDateTime(" + day + ", " + zoneLiteral(p.zone) + ")"
}

// spanSeries is the gap-filling series of an hour series with day spans: one bucket per span day,
// one per hour elsewhere.
func (p *plan) spanSeries() fragment {
	z := zoneLiteral(p.zone)
	day := "toDate(ts, " + z + ")"
	from, n := seriesSteps(p.start, p.end)
	return expr("SELECT DISTINCT if(?, "+p.daySpanBucket(day)+", toDateTime(toStartOfHour(ts, "+z+"), "+z+")) AS bucket "+
		"FROM (SELECT toDateTime(? + number * 300) AS ts FROM system.numbers LIMIT ?)", p.spans.cond(day), from, n)
}

// bucketLabel is a row's date (YYYY-MM-DD for a day or coarser, RFC 3339 in the project's offset
// for finer) and, for a row answered coarser than asked, the granularity it has.
func (p *plan) bucketLabel(b time.Time) (label, mark any) {
	g := p.gran.name
	switch {
	case p.gran.dayBased:
		label = b.Format(time.DateOnly)
	case p.spans.has(facts.LocalDay(b, p.loc)):
		label, g = b.In(p.loc).Format(time.DateOnly), "day"
	default:
		label = b.In(p.loc).Format(time.RFC3339)
	}
	if g != p.asked.name {
		mark = g
	}
	return label, mark
}
