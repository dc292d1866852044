package adsync

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/platform"
)

// Scheduler runs the connections that are due: active and error ones of the ad networks whose
// latest run started at least the workspace tier's interval ago (platform.SyncInterval: 30, 10
// or 5 minutes), or that never ran. The job runner calls RunDue every minute with jitter, so a
// run starts between the estimate that GET /v3/connections/{id}/sync shows and a minute and
// the jitter later. The advisory lock in Syncer.Run keeps one run per connection across
// instances.
type Scheduler struct {
	Syncer *Syncer
	Log    *slog.Logger
	// Parallel is how many connections sync at once (default 4).
	Parallel int
}

// ref is a syncable connection with its workspace's tier and its latest run's start.
type ref struct {
	id, workspaceID, tier string
	last                  *time.Time
}

// syncable lists the active and error connections of the ad networks.
func (s *Store) syncable(ctx context.Context) ([]ref, error) {
	rows, err := s.pool.Query(ctx, `SELECT c.id, c.workspace_id, w.tier,
			(SELECT max(r.started_at) FROM sync_runs r WHERE r.connection_id = c.id)
		FROM connections c JOIN workspaces w ON w.id = c.workspace_id
		WHERE c.kind = ANY($1) AND c.status = ANY($2) ORDER BY c.id`,
		[]string{platform.KindAlpha, platform.KindBeta, platform.KindGamma}, []string{platform.ConnActive, platform.ConnError})
	if err != nil {
		return nil, err
	}
	var out []ref
	var r ref
	_, err = pgx.ForEachRow(rows, []any{&r.id, &r.workspaceID, &r.tier, &r.last}, func() error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// SyncableIDs lists the connections that the scheduler syncs.
func (s *Store) SyncableIDs(ctx context.Context) ([]string, error) {
	refs, err := s.syncable(ctx)
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.id
	}
	return ids, err
}

// due lists the syncable connections whose next run is at or before now.
func (s *Store) due(ctx context.Context, now time.Time) ([]ref, error) {
	refs, err := s.syncable(ctx)
	var out []ref
	for _, r := range refs {
		if r.last == nil || !r.last.Add(platform.SyncInterval(r.tier)).After(now) {
			out = append(out, r)
		}
	}
	return out, err
}

// RunDue syncs every due connection and waits for them. A failed sync is recorded in its run
// and logged; only failing to list the connections is an error.
func (s *Scheduler) RunDue(ctx context.Context) error {
	sy := s.Syncer
	due, err := sy.Store.due(ctx, sy.Clock.Now())
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

func (s *Scheduler) runOne(ctx context.Context, d ref) {
	c, err := s.Syncer.Connections.ConnectionIn(ctx, []string{d.workspaceID}, d.id)
	if err == nil {
		var res Result
		res, err = s.Syncer.Run(ctx, c, Options{})
		if err == nil {
			s.Log.Info("sync done", "connection", d.id, "sync_type", res.SyncType, "rows", res.Rows, "took_ms", res.Took.Milliseconds())
			return
		}
	}
	if errors.Is(err, ErrBusy) || errors.Is(err, ErrNotSyncable) {
		return
	}
	s.Log.Error("sync failed", "connection", d.id, "error", err.Error())
}
