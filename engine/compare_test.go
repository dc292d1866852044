package engine

import (
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

func TestCompareRanges(t *testing.T) {
	ny, _ := time.LoadLocation("America/New_York")
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, ny)
		if err != nil {
			t.Fatal(err)
		}
		return v.UTC()
	}
	cases := []struct {
		name       string
		c          Compare
		start, end string // local, [start, end)
		want       [2]string
	}{
		// Seven whole days across the spring DST change compare with the seven days before.
		{"previous_period of days", Compare{Mode: ComparePreviousPeriod}, "2026-03-09 00:00", "2026-03-16 00:00", [2]string{"2026-03-02 00:00", "2026-03-09 00:00"}},
		{"previous_period of hours", Compare{Mode: ComparePreviousPeriod}, "2026-03-10 09:00", "2026-03-10 15:00", [2]string{"2026-03-10 03:00", "2026-03-10 09:00"}},
		{"previous_year", Compare{Mode: ComparePreviousYear}, "2026-03-01 00:00", "2026-04-01 00:00", [2]string{"2025-03-01 00:00", "2025-04-01 00:00"}},
		{"previous_year from 29 February", Compare{Mode: ComparePreviousYear}, "2028-02-29 00:00", "2028-03-01 00:00", [2]string{"2027-02-28 00:00", "2027-03-01 00:00"}},
		{"explicit", Compare{Start: "2025-12-01", End: "2025-12-07"}, "2026-03-01 00:00", "2026-03-08 00:00", [2]string{"2025-12-01 00:00", "2025-12-08 00:00"}},
	}
	for _, c := range cases {
		s, e := compareRange(&c.c, at(c.start), at(c.end), ny)
		if !s.Equal(at(c.want[0])) || !e.Equal(at(c.want[1])) {
			t.Errorf("%s: [%s, %s), want [%s, %s)", c.name, s.In(ny), e.In(ny), c.want[0], c.want[1])
		}
	}
}

func TestChange(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	money := func(s string) Money { return Money{decimal.RequireFromString(s)} }
	cases := []struct {
		value, compare any
		want           *float64
	}{
		{int64(15), int64(10), f(0.5)},
		{int64(5), int64(10), f(-0.5)},
		{int64(0), int64(10), f(-1)},
		{int64(10), int64(0), nil},               // compare 0
		{money("5.00"), money("-10.00"), f(1.5)}, // a negative compare (profit): over its size
		{money("-20.00"), money("-10.00"), f(-1)},
		{money("10.01"), money("10.00"), f(0.001)},
		{f(0.02), f(0.01), f(1)},
		{(*float64)(nil), f(0.01), nil}, // null value
		{f(0.02), (*float64)(nil), nil}, // null compare
		{nil, int64(3), nil},            // no row in the current period's place
		{int64(3), nil, nil},            // no comparison row
	}
	for _, c := range cases {
		got := change(c.value, c.compare)
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("change(%v, %v) = %v, want %v", c.value, c.compare, deref(got), deref(c.want))
		}
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
