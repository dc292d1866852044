package adsync_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"mtk/adsync"
	"mtk/internal/adsim"
	"mtk/platform"
)

// TestFailuresRetriesAndStatus: 5xx answers are retried with exponential backoff; a sync that
// still fails is recorded as error with its message; three in a row put the connection in
// error, a good one brings it back; nothing is counted twice; 504s (held requests) are retried.
func TestFailuresRetriesAndStatus(t *testing.T) {
	w := newWorld(t, time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC), 20)
	w.syncAll()
	ctx := context.Background()
	id := w.conns[adsim.Alpha].ID
	before := w.total("facts_daily", id)

	w.sim.SetFaults(adsim.Faults{Network: adsim.Alpha, FailNext: 1000, FailStatus: http.StatusServiceUnavailable})
	for i := 1; i <= platform.FailuresBeforeError; i++ {
		*w.sleeps = nil
		w.clock.Advance(10 * time.Minute)
		_, err := w.syncer.Run(ctx, w.conn(adsim.Alpha), adsync.Options{})
		if err == nil || !strings.Contains(err.Error(), "503") {
			t.Fatalf("sync %d under faults: %v", i, err)
		}
		if got := *w.sleeps; len(got) != 3 || got[0] != time.Second || got[1] != 2*time.Second || got[2] != 4*time.Second {
			t.Fatalf("backoff waits %v, want [1s 2s 4s]", got)
		}
		want := platform.ConnActive
		if i == platform.FailuresBeforeError {
			want = platform.ConnError
		}
		if c := w.conn(adsim.Alpha); c.Status != want || c.ConsecutiveFailures != i {
			t.Fatalf("after %d failures: status %s, failures %d", i, c.Status, c.ConsecutiveFailures)
		}
		r := w.runs(adsim.Alpha)[0]
		if r.Status != platform.SyncError || r.Error == nil || !strings.Contains(*r.Error, "503") || r.CompletedAt == nil || r.SyncType != platform.SyncIncremental {
			t.Fatalf("failed run recorded as %+v", r)
		}
	}
	if got := w.total("facts_daily", id); got != before {
		t.Fatalf("failed syncs changed the facts: %+v, was %+v", got, before)
	}

	// A connection in error is still synced; a good run (through two held requests answered
	// 504, retried) brings it back to active.
	w.sim.SetFaults(adsim.Faults{Network: adsim.Alpha, TimeoutNext: 2, Hold: time.Millisecond})
	w.clock.Advance(10 * time.Minute)
	if _, err := w.syncer.Run(ctx, w.conn(adsim.Alpha), adsync.Options{}); err != nil {
		t.Fatal(err)
	}
	if c := w.conn(adsim.Alpha); c.Status != platform.ConnActive || c.ConsecutiveFailures != 0 {
		t.Fatalf("after a good run: status %s, failures %d", c.Status, c.ConsecutiveFailures)
	}
	if r := w.runs(adsim.Alpha)[0]; r.Status != platform.SyncSuccess || r.Error != nil {
		t.Fatalf("good run recorded as %+v", r)
	}
	w.sim.ClearFaults()
	w.syncAll() // the waits moved the clock: catch up, then repeat
	if rows := w.syncAll(); rows != 0 {
		t.Fatalf("a repeated sync after recovery wrote %d rows", rows)
	}
	// Nothing counted twice: everything up to the day before yesterday is final and exact.
	a := w.accts[adsim.Alpha]
	loc, _ := time.LoadLocation(a.TimeZone)
	until := w.clock.Now().In(loc).AddDate(0, 0, -2).Format(time.DateOnly)
	truth, err := w.sim.Truth(adsim.TruthQuery{Network: adsim.Alpha, Account: a.ID, Granularity: adsim.GranularityDay, Until: until})
	if err != nil {
		t.Fatal(err)
	}
	got := w.stored("facts_daily", "toString(day)", id)
	compare(t, truth.Rows, got, func(r adsim.TruthRow) string { return r.Date }, true, "", until)
}

// TestRateLimitWaitsAsTold: over the quota, every network answers 429 and the client waits the
// time it is told (Retry-After, or beta's retryDelay) before trying again.
func TestRateLimitWaitsAsTold(t *testing.T) {
	w := newWorld(t, time.Date(2024, 5, 20, 13, 5, 30, 0, time.UTC), 10)
	w.sim.SetQuota(3)
	for n := range w.conns {
		*w.sleeps = nil
		if _, err := w.syncer.Run(context.Background(), w.conn(n), adsync.Options{}); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if len(*w.sleeps) == 0 {
			t.Fatalf("%s: never waited for the quota", n)
		}
		for _, d := range *w.sleeps {
			if d <= 0 || d > time.Minute || d%time.Second != 0 {
				t.Fatalf("%s: waited %v, not a quota window's rest in seconds", n, d)
			}
		}
	}
	if r := w.runs(adsim.Beta)[0]; r.Status != platform.SyncSuccess || r.SyncType != platform.SyncFull {
		t.Fatalf("run %+v", r)
	}
}
