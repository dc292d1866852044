package engine

import (
	"time"

	"mtk/facts"
)

// DefaultDays is the range of a query without `time`: the last 30 local days, today included.
const DefaultDays = 30

var localLayouts = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
}

// parseBound reads YYYY-MM-DD (dateOnly), an RFC 3339 date-time with an offset, or an ISO
// date-time without one, which is read in loc.
func parseBound(s string, loc *time.Location) (t time.Time, dateOnly bool, ok bool) {
	if d, err := time.Parse("2006-01-02", s); err == nil {
		return d, true, true
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, false, true
	}
	for _, layout := range localLayouts {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, false, true
		}
	}
	return time.Time{}, false, false
}

// resolveRange turns validated bounds into the instants [start, end), in UTC (so that equal
// ranges compile to equal statements whatever their spelling). A named range is its local days
// at now (ranges.go). A date-only start is the start of that local day; a date-only end includes that whole day; a date-time end is exclusive.
func resolveRange(ts *TimeSpec, loc *time.Location, now time.Time) (start, end time.Time) {
	if ts == nil {
		today := facts.LocalDay(now, loc)
		return DayStart(today.AddDate(0, 0, 1-DefaultDays), loc).UTC(), DayStart(today.AddDate(0, 0, 1), loc).UTC()
	}
	if ts.Range != "" {
		first, last, _ := namedDays(ts.Range, facts.LocalDay(now, loc))
		return DayStart(first, loc).UTC(), DayStart(last.AddDate(0, 0, 1), loc).UTC()
	}
	s, sDate, _ := parseBound(ts.Start, loc)
	e, eDate, _ := parseBound(ts.End, loc)
	if sDate {
		s = DayStart(s, loc)
	}
	if eDate {
		e = DayStart(e.AddDate(0, 0, 1), loc)
	}
	return s.UTC(), e.UTC()
}

// dayRange is the local days [first, last+1) that the instants [start, end) touch.
func dayRange(start, end time.Time, loc *time.Location) (first, after time.Time) {
	return facts.LocalDay(start, loc), facts.LocalDay(end.Add(-time.Second), loc).AddDate(0, 0, 1)
}

// supportedRange adds a problem, naming the members that set them, for a start or an end of the
// range [start, end) outside the supported instants (facts.MinTime): ClickHouse would read it
// as another day, or fail. That bounds every instant and local day sent to ClickHouse
// (dayRange, hour widening, series), in every zone. It reports whether the range is supported.
func supportedRange(p *problems, members [2]string, start, end time.Time) bool {
	ok := true
	if start.Before(facts.MinTime) {
		p.add("%s: starts at %s, before the supported instants (%s)", members[0], start.UTC().Format(time.RFC3339), facts.TimeRange())
		ok = false
	}
	if end.After(facts.MaxTime) {
		p.add("%s: ends at %s, after the supported instants (%s)", members[1], end.UTC().Format(time.RFC3339), facts.TimeRange())
		ok = false
	}
	return ok
}

// minuteRange adds a problem, naming the member, for a start or an end of the range that is not
// on a whole minute: events and orders are stored at their minute, so such a bound could be
// answered only by moving it, which an answer never does silently. It reports whether both are.
func minuteRange(p *problems, members [2]string, start, end time.Time) bool {
	ok := true
	for i, t := range [2]time.Time{start, end} {
		if !t.Equal(t.Truncate(time.Minute)) {
			p.add("%s: %s is not on a whole minute; facts are stored per minute, so the range must start and end on one",
				members[i], t.UTC().Format(time.RFC3339Nano))
			ok = false
		}
	}
	return ok
}

// timeMembers names the members that set the query's start and end: time.start and time.end,
// time.range for a named range, time for the default range.
func timeMembers(ts *TimeSpec) [2]string {
	switch {
	case ts == nil:
		return [2]string{"time", "time"}
	case ts.Range != "":
		return [2]string{"time.range", "time.range"}
	}
	return [2]string{"time.start", "time.end"}
}
