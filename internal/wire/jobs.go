package wire

import (
	"context"
	"time"

	"mtk/adsync"
	"mtk/api/idempotency"
	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/jobs"
)

// Jobs is the one table of mtk's scheduled jobs.
func (s *System) Jobs() []jobs.Job {
	clk, log := s.Clock, s.Log
	idem := idempotency.NewStore(s.Postgres)
	store := s.Store
	scheduler := &adsync.Scheduler{Syncer: s.Syncer, Log: log}
	return []jobs.Job{
		{
			Name: "idempotency-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: func(ctx context.Context) error {
				n, err := idem.Purge(ctx, clk.Now())
				if n > 0 {
					log.Info("purged expired idempotency records", "rows", n)
				}
				return err
			},
		},
		{
			// An event_id identifies an event for 7 days; older ids are forgotten.
			Name: "event-ids-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: func(ctx context.Context) error {
				n, err := events.PurgeEventIDs(ctx, s.Postgres, clk.Now())
				if n > 0 {
					log.Info("purged expired event ids", "rows", n)
				}
				return err
			},
		},
		{
			// The outboxes' sizes, which bound what waits for ClickHouse, are kept as one row per
			// PostgreSQL backend; this folds them and corrects any drift (outbox.Recount).
			Name: "outbox-recount", Schedule: "@every 10m", Jitter: time.Minute,
			Run: func(ctx context.Context) error { return outbox.Recount(ctx, s.Postgres) },
		},
		{
			// Moves containers whose latest event is 24 hours old to not_receiving_events_p24h.
			Name: "container-status", Schedule: "@every 5m", Jitter: 30 * time.Second,
			Run: func(ctx context.Context) error {
				n, err := store.RefreshContainerStatuses(ctx, clk.Now())
				if n > 0 {
					log.Info("container statuses changed", "containers", n)
				}
				return err
			},
		},
		{
			// Syncs every active or error ad network connection whose tier interval (30, 10 or 5
			// minutes) has passed since its last run; see adsync.Scheduler.
			Name: "sync", Schedule: "@every 1m", Jitter: 20 * time.Second,
			Run: scheduler.RunDue,
		},
	}
}
