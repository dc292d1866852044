package wire

import (
	"context"
	"sync"

	"mtk/ingest/credits"
	"mtk/ingest/events"
	"mtk/ingest/factstream"
	"mtk/ingest/journeys"
	"mtk/ingest/outbox"
)

// StartWorkers runs the long-running outbox workers (the fact, event and journey drainers, the
// credit worker and the credit drainer, the conversion deliverer) until ctx ends; Wait on the result returns when they have stopped (a
// step in progress finishes first).
func (s *System) StartWorkers(ctx context.Context) *sync.WaitGroup {
	clk, log, m := s.Clock, s.Log, s.Metrics
	events, drainer := s.drainers()
	deliverer := outbox.NewDeliverer(s.Postgres, s.Store.Connections, nil, clk, log)
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
	journeys := s.journeyDrainer()
	worker, creditDrainer := s.credits()
	wg.Add(6)
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "facts", drain) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "journeys", journeys.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "credit worker", worker.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "credits", creditDrainer.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.EventsInterval, log, "events", events.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "conversions", deliverer.RunOnce) }()
	return &wg
}

// Drain moves what waits in the event, fact and journey outboxes into ClickHouse once, credits
// the orders whose journeys changed and lands their credits, as the workers do (the demo seed and
// the tests, which have no workers running).
func (s *System) Drain(ctx context.Context) error {
	events, facts := s.drainers()
	worker, creditDrainer := s.credits()
	for _, step := range []func(context.Context) (int, error){events.RunOnce, facts.RunOnce, s.journeyDrainer().RunOnce,
		worker.RunOnce, creditDrainer.RunOnce} {
		if _, err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// drainers are the event and the fact outboxes' Drainers, in the configured partitions.
func (s *System) drainers() (eventDrainer, factDrainer *outbox.Drainer) {
	eventDrainer = events.NewDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	factDrainer = factstream.NewDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	for _, d := range []*outbox.Drainer{eventDrainer, factDrainer} {
		d.Partitions, d.Cluster = s.Config.DrainPartitions, s.Config.ClickHouseCluster
	}
	return eventDrainer, factDrainer
}

// journeyDrainer is the journey outbox's Drainer, in the configured partitions.
func (s *System) journeyDrainer() *outbox.Drainer {
	d := journeys.NewDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	d.Partitions, d.Cluster = s.Config.DrainPartitions, s.Config.ClickHouseCluster
	return d
}

// credits are the credit worker and the credit outbox's Drainer, in the configured partitions.
func (s *System) credits() (*credits.Worker, *outbox.Drainer) {
	w := credits.New(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	d := credits.NewDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	w.Partitions, d.Partitions, d.Cluster = s.Config.DrainPartitions, s.Config.DrainPartitions, s.Config.ClickHouseCluster
	if s.Metrics != nil {
		w.Observe = s.Metrics.CreditBatch
	}
	return w, d
}
