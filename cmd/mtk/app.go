package main

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"mtk/api"
	"mtk/engine"
	"mtk/ingest/attribution"
	"mtk/ingest/events"
	"mtk/ingest/orders"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/metrics"
	"mtk/platform"
)

// newApp wires the HTTP API to the stores; m (nil: none) measures it. close stores the events
// still queued; call it after the HTTP server has stopped.
func newApp(cfg config.Config, st stores, clk clock.Clock, log *slog.Logger, m *metrics.Metrics) (app *fiber.App, close func()) {
	store := platform.NewStore(st.pg, clk)
	resolver := attribution.New(st.ch, store, clk, 0)
	evCfg, engOpts := events.Config{}, engine.Options{Clock: clk}
	if m != nil {
		evCfg.Batch.Observe, evCfg.QueueFull, engOpts.Observe = m.EventFlush, m.EventRefused, m.Query
	}
	evs := events.New(evCfg, st.pg, store, resolver, clk, log)
	if m != nil {
		m.WatchEventQueue(evs.Queued)
	}
	app = api.New(api.Deps{
		Config: cfg, Platform: store, ClickHouse: st.ch, Events: evs, Orders: orders.New(st.pg, store, resolver, clk),
		Engine: engine.New(st.ch, engOpts), Clock: clk, Logger: log,
		Objects: newObjects(st, clk), Metrics: m,
	})
	return app, evs.Close
}
