package main

import (
	"context"
	"log/slog"
	"time"

	"mtk/api/idempotency"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/jobs"
	"mtk/platform"
)

// backgroundJobs is the one table of mtk's scheduled jobs.
func backgroundJobs(st stores, clk clock.Clock, log *slog.Logger) []jobs.Job {
	idem := idempotency.NewStore(st.pg)
	store := platform.NewStore(st.pg, clk)
	drainer := outbox.NewDrainer(st.pg, st.ch, clk, log)
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
			// Applied fact outbox rows are kept a week for inspection, then deleted.
			Name: "fact-outbox-purge", Schedule: "@every 1h", Jitter: 5 * time.Minute,
			Run: func(ctx context.Context) error {
				_, err := drainer.Purge(ctx, 7*24*time.Hour)
				return err
			},
		},
	}
}
