package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"mtk/ingest/outbox"
	"mtk/internal/clock"
)

// workerInterval is how often the outbox workers look for work when idle.
const workerInterval = time.Second

// startWorkers runs the long-running outbox workers until ctx ends; Wait on the result returns
// when they have stopped (a step in progress finishes first).
func startWorkers(ctx context.Context, st stores, clk clock.Clock, log *slog.Logger) *sync.WaitGroup {
	drainer := outbox.NewDrainer(st.pg, st.ch, clk, log)
	deliverer := outbox.NewDeliverer(st.pg, nil, clk, log)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); outbox.Run(ctx, workerInterval, log, "facts", drainer.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, workerInterval, log, "conversions", deliverer.RunOnce) }()
	return &wg
}
