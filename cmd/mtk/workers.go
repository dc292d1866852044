package main

import (
	"context"
	"log/slog"
	"sync"

	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/metrics"
)

// startWorkers runs the long-running outbox workers until ctx ends; Wait on the result returns
// when they have stopped (a step in progress finishes first). m (nil: none) counts their work.
func startWorkers(ctx context.Context, st stores, clk clock.Clock, log *slog.Logger, m *metrics.Metrics) *sync.WaitGroup {
	drainer := outbox.NewDrainer(st.pg, st.ch, clk, log)
	events := outbox.NewEventDrainer(st.pg, st.ch, clk, log)
	deliverer := outbox.NewDeliverer(st.pg, nil, clk, log)
	drain := drainer.RunOnce
	if m != nil {
		deliverer.Observe = m.ConversionsSettled
		drain = func(ctx context.Context) (int, error) {
			n, err := drainer.RunOnce(ctx)
			m.FactsApplied(n)
			return n, err
		}
	}
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "facts", drain) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.EventsInterval, log, "events", events.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "conversions", deliverer.RunOnce) }()
	return &wg
}
