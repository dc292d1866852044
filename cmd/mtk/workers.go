package main

import (
	"context"
	"log/slog"
	"sync"

	"mtk/ingest/outbox"
	"mtk/internal/clock"
)

// startWorkers runs the long-running outbox workers until ctx ends; Wait on the result returns
// when they have stopped (a step in progress finishes first).
func startWorkers(ctx context.Context, st stores, clk clock.Clock, log *slog.Logger) *sync.WaitGroup {
	drainer := outbox.NewDrainer(st.pg, st.ch, clk, log)
	events := outbox.NewEventDrainer(st.pg, st.ch, clk, log)
	deliverer := outbox.NewDeliverer(st.pg, nil, clk, log)
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "facts", drainer.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.EventsInterval, log, "events", events.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "conversions", deliverer.RunOnce) }()
	return &wg
}
