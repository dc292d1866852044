// Package wire puts mtk's HTTP API together over its stores, exactly as `mtk serve` runs it: the
// one place the services are built, used by the server, the test helpers and the benchmarks.
package wire

import (
	"log/slog"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/gofiber/fiber/v2"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/api"
	"mtk/engine"
	"mtk/ingest/attribution"
	"mtk/ingest/events"
	"mtk/ingest/orders"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/metrics"
	"mtk/platform"
)

// App wires the HTTP API to the stores; m (nil: none) measures it. close stores the events still
// queued; call it after the HTTP server has stopped.
func App(cfg config.Config, store *platform.Store, ch driver.Conn, clk clock.Clock, log *slog.Logger, m *metrics.Metrics) (app *fiber.App, close func()) {
	pg := store.Pool()
	resolver := attribution.New(pg, clk, 0)
	var bounds outbox.Bounds
	bounds.Events, bounds.Facts = cfg.OutboxBounds()
	evCfg, engOpts := events.Config{Bounds: bounds}, engine.Options{Clock: clk, Cluster: cfg.ClickHouseCluster != "",
		MaxConcurrent: cfg.QuerySlots()}
	if m != nil {
		evCfg.Batch.Observe, evCfg.QueueFull, engOpts.Observe = m.EventFlush, m.EventRefused, m.Query
	}
	evs := events.New(evCfg, pg, store, resolver, clk, log)
	if m != nil {
		m.WatchEventQueue(evs.Queued)
	}
	app = api.New(api.Deps{
		Config: cfg, Platform: store, ClickHouse: ch, Events: evs, Orders: orders.New(pg, store, resolver, clk, bounds),
		Engine: engine.New(ch, engOpts), Clock: clk, Logger: log,
		Objects: &adsync.Objects{Store: adsync.NewStore(pg), Connectors: networks.Factory{}.Connector, Clock: clk},
		Metrics: m,
	})
	return app, evs.Close
}
