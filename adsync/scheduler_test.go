package adsync_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"mtk/adsync"
	"mtk/internal/adsim"
	"mtk/platform"
)

// TestSchedulerRunsDueConnections: a connection that never ran is due at once; then again only
// after its tier's interval (growth: 10 minutes), as the sync status estimates; a paused one
// never runs.
func TestSchedulerRunsDueConnections(t *testing.T) {
	w := newWorld(t, time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC), 5)
	ctx := context.Background()
	if _, err := w.pg.Pool.Exec(ctx, "UPDATE connections SET status = $2 WHERE id = $1", w.conns[adsim.Gamma].ID, platform.ConnPaused); err != nil {
		t.Fatal(err)
	}
	s := &adsync.Scheduler{Syncer: w.syncer, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	count := func(n adsim.Network) int { return len(w.runs(n)) }
	if err := s.RunDue(ctx); err != nil {
		t.Fatal(err)
	}
	if count(adsim.Alpha) != 1 || count(adsim.Beta) != 1 || count(adsim.Gamma) != 0 {
		t.Fatalf("first pass: %d %d %d runs", count(adsim.Alpha), count(adsim.Beta), count(adsim.Gamma))
	}
	st, err := w.store.Connections.SyncStatusOf(ctx, w.conn(adsim.Alpha))
	if err != nil || st.Schedule.SyncIntervalMinutes != 10 || !st.Schedule.NextSyncEstimate.Equal(w.clock.Now().Add(10*time.Minute)) {
		t.Fatalf("status %+v %v", st.Schedule, err)
	}
	w.clock.Advance(9 * time.Minute)
	s.RunDue(ctx)
	if count(adsim.Alpha) != 1 {
		t.Fatal("ran before its interval")
	}
	w.clock.Advance(time.Minute)
	s.RunDue(ctx)
	if count(adsim.Alpha) != 2 || count(adsim.Gamma) != 0 || w.runs(adsim.Alpha)[0].SyncType != platform.SyncIncremental {
		t.Fatalf("after the interval: %d runs of alpha, %d of the paused one", count(adsim.Alpha), count(adsim.Gamma))
	}
}
