package adsync

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"mtk/internal/recovered"
	"mtk/platform"
)

// Scheduler runs the connections that are due: active and error ones of the ad networks whose
// latest run started at least the workspace tier's interval ago (platform.SyncInterval: 30, 10
// or 5 minutes), or that never ran. The job runner calls RunDue every minute with jitter, so a
// run starts between the estimate that GET /v3/connections/{id}/sync shows and a minute and
// the jitter later. The advisory lock in Syncer.Run keeps one run per connection across
// instances, and the due connection it is given (Options.Due) keeps a worker from syncing again
// what another synced between this one's listing and its lock.
type Scheduler struct {
	Syncer *Syncer
	Log    *slog.Logger
	// Parallel is how many connections sync at once (default 4).
	Parallel int
}

// SyncableIDs lists the connections that the scheduler syncs.
func (s *Syncer) SyncableIDs(ctx context.Context) ([]string, error) {
	cs, err := s.Connections.SyncCandidates(ctx)
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	return ids, err
}

// due lists the syncable connections whose next run is at or before now.
func (s *Syncer) due(ctx context.Context, now time.Time) ([]platform.SyncCandidate, error) {
	cs, err := s.Connections.SyncCandidates(ctx)
	var out []platform.SyncCandidate
	for _, c := range cs {
		if c.LastStart == nil || !c.LastStart.Add(platform.SyncInterval(c.Tier)).After(now) {
			out = append(out, c)
		}
	}
	return out, err
}

// RunDue syncs every due connection and waits for them. A failed sync is recorded in its run
// and logged; only failing to list the connections is an error.
func (s *Scheduler) RunDue(ctx context.Context) error {
	sy := s.Syncer
	due, err := sy.due(ctx, sy.Clock.Now())
	if err != nil {
		return err
	}
	par := s.Parallel
	if par <= 0 {
		par = 4
	}
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for _, d := range due {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			s.runOne(ctx, d)
		}()
	}
	wg.Wait()
	return nil
}

func (s *Scheduler) runOne(ctx context.Context, d platform.SyncCandidate) {
	// On a goroutine of its own, out of the job's recovery: a panic is this run's error.
	err := recovered.Call(func() error {
		c, err := s.Syncer.Connections.ConnectionIn(ctx, []string{d.WorkspaceID}, d.ID)
		if err != nil {
			return err
		}
		res, err := s.Syncer.Run(ctx, c, Options{Due: &d})
		if err == nil {
			s.Log.Info("sync done", "connection", d.ID, "sync_type", res.SyncType, "rows", res.Rows, "took_ms", res.Took.Milliseconds())
		}
		return err
	})
	if err == nil {
		return
	}
	if errors.Is(err, ErrBusy) || errors.Is(err, ErrNotSyncable) {
		return
	}
	s.Log.Error("sync failed", "connection", d.ID, "error", err.Error())
}
