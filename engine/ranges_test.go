package engine

import (
	"testing"
	"time"
)

// TestNamedRanges resolves every range name in the project's zone against dates written out by
// hand: in New York the evening of 2026-03-30 (a Monday, three weeks after the spring DST change,
// so last_30_days crosses it), and just before midnight on 2026-10-31 (a month's last day, hours
// before the autumn change), where Berlin is already in November.
func TestNamedRanges(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	berlin, _ := time.LoadLocation("Europe/Berlin")
	cases := []struct {
		loc  *time.Location
		now  string // UTC
		want map[string][2]string
	}{
		{ny, "2026-03-31T02:30:00Z", map[string][2]string{ // 2026-03-30 22:30 EDT
			"today": {"2026-03-30", "2026-03-30"}, "yesterday": {"2026-03-29", "2026-03-29"},
			"last_7_days": {"2026-03-23", "2026-03-29"}, "last_14_days": {"2026-03-16", "2026-03-29"},
			"last_30_days": {"2026-02-28", "2026-03-29"}, "last_90_days": {"2025-12-30", "2026-03-29"},
			"this_week": {"2026-03-30", "2026-03-30"}, "this_month": {"2026-03-01", "2026-03-30"},
			"last_month": {"2026-02-01", "2026-02-28"}, "this_year": {"2026-01-01", "2026-03-30"},
		}},
		{ny, "2026-11-01T03:30:00Z", map[string][2]string{ // 2026-10-31 23:30 EDT, a Saturday
			"today": {"2026-10-31", "2026-10-31"}, "yesterday": {"2026-10-30", "2026-10-30"},
			"last_7_days": {"2026-10-24", "2026-10-30"}, "this_week": {"2026-10-26", "2026-10-31"},
			"this_month": {"2026-10-01", "2026-10-31"}, "last_month": {"2026-09-01", "2026-09-30"},
		}},
		{berlin, "2026-10-31T23:30:00Z", map[string][2]string{ // 2026-11-01 00:30 CET, a Sunday
			"today": {"2026-11-01", "2026-11-01"}, "yesterday": {"2026-10-31", "2026-10-31"},
			"this_week": {"2026-10-26", "2026-11-01"}, "this_month": {"2026-11-01", "2026-11-01"},
			"last_month": {"2026-10-01", "2026-10-31"}, "this_year": {"2026-01-01", "2026-11-01"},
		}},
	}
	for _, c := range cases {
		now, _ := time.Parse(time.RFC3339, c.now)
		for name, want := range c.want {
			start, end := resolveRange(&TimeSpec{Range: name}, c.loc, now)
			// The instants are the local midnights of the first day and of the day after the last.
			first, _ := time.ParseInLocation(time.DateOnly, want[0], c.loc)
			last, _ := time.ParseInLocation(time.DateOnly, want[1], c.loc)
			if !start.Equal(first) || !end.Equal(last.AddDate(0, 0, 1)) {
				t.Errorf("%s at %s in %s: [%s, %s), want [%s, %s)", name, c.now, c.loc, start.In(c.loc), end.In(c.loc),
					first, last.AddDate(0, 0, 1))
			}
		}
	}
	for _, name := range Ranges {
		if _, _, ok := namedDays(name, time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)); !ok {
			t.Errorf("%s is listed but not resolved", name)
		}
	}
}
