package adsync_test

import (
	"fmt"
	"testing"
	"time"

	"mtk/internal/adsim"
)

// TestWeekOfSyncsMatchesTruth syncs the three networks for a simulated week (a first full sync,
// then incremental ones at uneven steps, with a gap of more than a day, across New York's change
// to summer time), and compares what ClickHouse holds per ad and day, and per ad and hour, with
// the simulator's final numbers, exactly. Restated days were read provisional first, so the
// comparison also proves the corrections landed.
func TestWeekOfSyncsMatchesTruth(t *testing.T) {
	start := time.Date(2024, 3, 5, 10, 17, 0, 0, time.UTC)
	w := newWorld(t, start, 40)
	if rows := w.syncAll(); rows == 0 {
		t.Fatal("first sync wrote nothing")
	}
	steps := []time.Duration{10 * time.Minute, 50 * time.Minute, 3*time.Hour + 7*time.Minute, 10 * time.Minute, 5 * time.Hour}
	for i := 0; w.clock.Now().Before(start.Add(7 * 24 * time.Hour)); i++ {
		step := steps[i%len(steps)]
		if i == 9 {
			step = 31 * time.Hour // a gap: the next incremental sync reaches back further
		}
		w.clock.Advance(step)
		w.syncAll()
	}
	if rows := w.syncAll(); rows != 0 {
		t.Fatalf("an identical second sync wrote %d rows", rows)
	}
	w.matchesTruth(t, start)
}

// matchesTruth compares what ClickHouse holds per ad and day (since 29 days before start), and
// per ad and hour (since 7 days before start), with the simulator's final numbers (up to the
// day before yesterday), exactly.
func (w *world) matchesTruth(t *testing.T, start time.Time) {
	t.Helper()
	now := w.clock.Now()
	for n, a := range w.accts {
		loc, _ := time.LoadLocation(a.TimeZone)
		final := now.In(loc).AddDate(0, 0, -2).Format(time.DateOnly)
		first := start.In(loc).AddDate(0, 0, -29).Format(time.DateOnly)
		hourFrom := start.In(loc).AddDate(0, 0, -7).Format(time.DateOnly)
		reach := n == adsim.Alpha
		t.Run(string(n)+" per day", func(t *testing.T) {
			truth, err := w.sim.Truth(adsim.TruthQuery{Network: n, Account: a.ID, Granularity: adsim.GranularityDay, Since: first, Until: final})
			if err != nil {
				t.Fatal(err)
			}
			got := w.stored("facts_daily", "toString(day)", w.conns[n].ID)
			compare(t, truth.Rows, got, func(r adsim.TruthRow) string { return r.Date }, reach, first, final)
		})
		t.Run(string(n)+" per hour", func(t *testing.T) {
			truth, err := w.sim.Truth(adsim.TruthQuery{Network: n, Account: a.ID, Granularity: adsim.GranularityHour, Since: hourFrom, Until: final})
			if err != nil {
				t.Fatal(err)
			}
			got := w.stored("facts_hourly", "toString(toUnixTimestamp(hour))", w.conns[n].ID)
			for k, v := range got { // reach is reported per day only: hourly rows compare without it
				v.Reach = 0
				got[k] = v
			}
			compare(t, truth.Rows, got, func(r adsim.TruthRow) string {
				d, _ := time.ParseInLocation(time.DateOnly, r.Date, loc)
				return fmt.Sprint(time.Date(d.Year(), d.Month(), d.Day(), *r.Hour, 0, 0, 0, loc).Unix())
			}, false, hourFrom, final)
		})
	}
}

// compare checks that every true bucket is stored exactly and that nothing else is stored on
// the dates compared.
func compare(t *testing.T, truth []adsim.TruthRow, got map[string]metricsRow, at func(adsim.TruthRow) string, reach bool, first, last string) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range truth {
		k := r.EntityID + " " + at(r)
		seen[k] = true
		if want := fromTruth(r.Metrics, reach); got[k] != want {
			t.Fatalf("%s on %s: stored %+v, true %+v", r.EntityID, at(r), got[k], want)
		}
	}
	if len(truth) == 0 {
		t.Fatal("no truth rows: the comparison proves nothing")
	}
	var want, have int
	for k, v := range got {
		if seen[k] {
			have++
		} else if v != (metricsRow{}) && inRange(k, first, last) {
			t.Fatalf("stored %s = %+v, which the network never reported", k, v)
		}
	}
	want = len(seen)
	t.Logf("%d true buckets compared", want)
	if have != want {
		t.Fatalf("%d of %d true buckets stored", have, want)
	}
}

// inRange tells whether a stored key's day (YYYY-MM-DD keys only) is inside first..last.
func inRange(key, first, last string) bool {
	d := key[len(key)-10:]
	if len(d) != 10 || d[4] != '-' {
		return false
	}
	return d >= first && d <= last
}
