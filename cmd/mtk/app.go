package main

import (
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/metrics"
	"mtk/internal/wire"
	"mtk/platform"
)

// newApp wires the HTTP API to the stores (internal/wire); m (nil: none) measures it. close
// stores the events still queued; call it after the HTTP server has stopped.
func newApp(cfg config.Config, st stores, clk clock.Clock, log *slog.Logger, m *metrics.Metrics) (app *fiber.App, close func()) {
	return wire.App(cfg, platform.NewStore(st.pg, clk), st.ch, clk, log, m)
}
