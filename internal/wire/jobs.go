package wire

import (
	"context"
	"log/slog"
	"time"

	"mtk/adsync"
	"mtk/api/idempotency"
	"mtk/ingest/conversions"
	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/jobs"
)

// Jobs is the one table of mtk's scheduled jobs.
func (s *System) Jobs() []jobs.Job {
	clk, log := s.Clock, s.Log
	idem := idempotency.NewStore(s.Postgres)
	scheduler := &adsync.Scheduler{Syncer: s.Syncer, Log: log}
	return []jobs.Job{
		{
			Name: "idempotency-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: counted(log, "purged expired idempotency records", "rows", func(ctx context.Context) (int64, error) {
				return idem.Purge(ctx, clk.Now())
			}),
		},
		{
			// An event_id identifies an event for 7 days; older ids are forgotten.
			Name: "event-ids-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: counted(log, "purged expired event ids", "rows", func(ctx context.Context) (int64, error) {
				return events.PurgeEventIDs(ctx, s.Postgres, clk.Now())
			}),
		},
		{
			// Sent conversions go after 7 days, dead ones after 30 (conversions.Purge).
			Name: "conversions-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: func(ctx context.Context) error {
				sent, dead, err := conversions.Purge(ctx, s.Postgres, clk.Now())
				if sent+dead > 0 {
					log.Info("purged settled conversions", "sent", sent, "dead", dead)
				}
				return err
			},
		},
		{
			// A logged-out token's revocation is kept until the token would have expired anyway.
			Name: "revoked-tokens-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: counted(log, "purged expired token revocations", "rows", func(ctx context.Context) (int64, error) {
				return s.Store.Users.PurgeRevokedTokens(ctx, clk.Now())
			}),
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
			Run: counted(log, "container statuses changed", "containers", func(ctx context.Context) (int64, error) {
				n, err := s.Store.Containers.RefreshContainerStatuses(ctx, clk.Now())
				return int64(n), err
			}),
		},
		{
			// Writes the business rows of the orders and events stored before the business facts
			// existed (BackfillBusiness); once it has recorded that it finished, a run does nothing.
			Name: "business-backfill", Schedule: "@every 1m", Jitter: 10 * time.Second, Timeout: 6 * time.Hour,
			Run: s.businessBackfillJob(),
		},
		{
			// Syncs every active or error ad network connection whose tier interval (30, 10 or 5
			// minutes) has passed since its last run; see adsync.Scheduler. A run that takes 30
			// minutes (a network or store that stopped answering) ends, recorded as failed.
			Name: "sync", Schedule: "@every 1m", Jitter: 20 * time.Second, Timeout: 30 * time.Minute,
			Run: scheduler.RunDue,
		},
	}
}

// counted runs a job step that changes rows and logs msg with how many (as key) when any.
func counted(log *slog.Logger, msg, key string, step func(context.Context) (int64, error)) func(context.Context) error {
	return func(ctx context.Context) error {
		n, err := step(ctx)
		if n > 0 {
			log.Info(msg, key, n)
		}
		return err
	}
}
