package adsync_test

import (
	"context"
	"errors"
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

// A connection the scheduler listed as due, then synced by another worker before this one took
// its lock, is not synced again: the run given the listing's candidate (Options.Due) is ErrBusy
// and records nothing, and one given the fresh candidate runs.
func TestScheduledRunSkipsAConnectionSyncedSinceItsListing(t *testing.T) {
	w := newWorld(t, time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC), 5)
	ctx := context.Background()
	c := w.conns[adsim.Alpha]
	// The listing saw no run; another worker then syncs the connection.
	listed := platform.SyncCandidate{ID: c.ID, WorkspaceID: c.WorkspaceID}
	if _, err := w.syncer.Run(ctx, c, adsync.Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.syncer.Run(ctx, c, adsync.Options{Due: &listed}); !errors.Is(err, adsync.ErrBusy) {
		t.Fatalf("a run by a stale listing: %v, want ErrBusy", err)
	}
	runs := w.runs(adsim.Alpha)
	if len(runs) != 1 {
		t.Fatalf("%d runs, want the other worker's only", len(runs))
	}
	w.clock.Advance(10 * time.Minute)
	started := runs[0].StartedAt
	if _, err := w.syncer.Run(ctx, c, adsync.Options{Due: &platform.SyncCandidate{ID: c.ID, WorkspaceID: c.WorkspaceID, LastStart: &started}}); err != nil {
		t.Fatal(err)
	}
	if len(w.runs(adsim.Alpha)) != 2 {
		t.Fatal("a run by a current listing did not run")
	}
}
