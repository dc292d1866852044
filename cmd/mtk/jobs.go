package main

import (
	"context"
	"log/slog"
	"time"

	"mtk/api/idempotency"
	"mtk/internal/clock"
	"mtk/internal/jobs"
)

// backgroundJobs is the one table of mtk's scheduled jobs.
func backgroundJobs(st stores, clk clock.Clock, log *slog.Logger) []jobs.Job {
	idem := idempotency.NewStore(st.pg)
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
	}
}
