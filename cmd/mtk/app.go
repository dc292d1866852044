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
	"mtk/platform"
)

// newApp wires the HTTP API to the stores. close stores the events still queued; call it after
// the HTTP server has stopped.
func newApp(cfg config.Config, st stores, clk clock.Clock, log *slog.Logger) (app *fiber.App, close func()) {
	store := platform.NewStore(st.pg, clk)
	resolver := attribution.New(st.ch, store, clk, 0)
	evs := events.New(events.Config{}, st.pg, st.ch, store, resolver, clk, log)
	app = api.New(api.Deps{
		Config: cfg, Platform: store, ClickHouse: st.ch, Events: evs, Orders: orders.New(st.pg, store, resolver, clk),
		Engine: engine.New(st.ch, engine.Options{Clock: clk, Cluster: cfg.ClickHouseCluster != ""}), Clock: clk, Logger: log,
		Objects: newObjects(st, clk),
	})
	return app, evs.Close
}
