package wire

import (
	"context"
	"sync"

	"mtk/ingest/outbox"
)

// StartWorkers runs the long-running outbox workers (the fact and event drainers, the
// conversion deliverer) until ctx ends; Wait on the result returns when they have stopped (a
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
	wg.Add(4)
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "facts", drain) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "journeys", journeys.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.EventsInterval, log, "events", events.RunOnce) }()
	go func() { defer wg.Done(); outbox.Run(ctx, outbox.Interval, log, "conversions", deliverer.RunOnce) }()
	return &wg
}

// Drain moves what waits in the event and fact outboxes into ClickHouse once, as the workers do
// (the demo seed and the tests, which have no workers running).
func (s *System) Drain(ctx context.Context) error {
	events, facts := s.drainers()
	for _, d := range []*outbox.Drainer{events, facts, s.journeyDrainer()} {
		if _, err := d.RunOnce(ctx); err != nil {
			return err
		}
	}
	return nil
}

// drainers are the event and the fact outboxes' Drainers, in the configured partitions.
func (s *System) drainers() (events, facts *outbox.Drainer) {
	events = outbox.NewEventDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	facts = outbox.NewDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	events.Partitions, facts.Partitions = s.Config.DrainPartitions, s.Config.DrainPartitions
	return events, facts
}

// journeyDrainer is the journey outbox's Drainer, in the configured partitions.
func (s *System) journeyDrainer() *outbox.Drainer {
	d := outbox.NewJourneyDrainer(s.Postgres, s.ClickHouse, s.Clock, s.Log)
	d.Partitions = s.Config.DrainPartitions
	return d
}
