package wire

import (
	"context"
	"time"

	"mtk/ingest/conversions"
	"mtk/ingest/credits"
	"mtk/ingest/events"
	"mtk/ingest/factstream"
	"mtk/ingest/journeys"
	"mtk/ingest/outbox"
	"mtk/internal/jobs"
)

// StartWorkers starts the long-running outbox workers in the System's runner (the fact, event
// and journey drainers, the credit worker and the credit drainer, the conversion deliverer); they
// run until Close, which waits for them (a step in progress sees its context end first).
func (s *System) StartWorkers() error {
	clk, log, m := s.Clock, s.Log, s.Metrics
	events, drainer := s.drainers()
	deliverer := conversions.NewDeliverer(s.Postgres, s.Store.Connections, nil, clk, log)
	drain := drainer.RunOnce
	if m != nil {
		deliverer.Observe = m.ConversionsSettled
		drain = func(ctx context.Context) (int, error) {
			n, err := drainer.RunOnce(ctx)
			m.FactsApplied(n)
			return n, err
		}
	}
	worker, creditDrainer := s.credits()
	for _, w := range []struct {
		name     string
		interval time.Duration
		step     func(context.Context) (int, error)
	}{
		{"facts", outbox.Interval, drain},
		{"journeys", outbox.Interval, s.journeyDrainer().RunOnce},
		{"credit worker", outbox.Interval, worker.RunOnce},
		{"credits", outbox.Interval, creditDrainer.RunOnce},
		{"events", outbox.EventsInterval, events.RunOnce},
		{"conversions", outbox.Interval, deliverer.RunOnce},
	} {
		step := w.step
		err := s.run.Every(w.name, w.interval, func(ctx context.Context) error { _, err := step(ctx); return err })
		if err != nil {
			return err
		}
	}
	return nil
}

// StartJobs starts the scheduled jobs (Jobs) in the System's runner until Close. Every worker
// fires every job; the tick's claim in PostgreSQL lets one of them run it.
func (s *System) StartJobs() error {
	ctx, cancel := context.WithCancel(context.Background())
	scheduler, err := jobs.New(ctx, s.Log, s.Jobs())
	if err != nil {
		cancel()
		return err
	}
	scheduler.Ticks = jobs.PostgresTicks(s.Postgres)
	err = s.run.Go("jobs", func(stop context.Context) error {
		scheduler.Start()
		<-stop.Done()
		cancel() // the runs in progress end first
		scheduler.Stop()
		return nil
	})
	if err != nil {
		cancel()
	}
	return err
}

// Drain moves what waits in the event, fact and journey outboxes into ClickHouse once, credits
// the orders whose journeys changed and lands their credits, as the workers do (the demo seed and
// the tests, which have no workers running).
func (s *System) Drain(ctx context.Context) error {
	events, facts := s.drainers()
	worker, creditDrainer := s.credits()
	// The facts after the credit worker, which attributes orders again (orders.Service.Reattribute).
	for _, step := range []func(context.Context) (int, error){events.RunOnce, s.journeyDrainer().RunOnce,
		worker.RunOnce, facts.RunOnce, creditDrainer.RunOnce} {
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
	w.Reattribute = s.Orders.Reattribute
	if s.Metrics != nil {
		w.Observe = s.Metrics.CreditBatch
	}
	return w, d
}
