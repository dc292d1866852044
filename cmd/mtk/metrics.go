package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/metrics"
)

// newMetrics makes the metrics of `mtk serve`, watching both stores' pools and outboxes; nil
// when MTK_METRICS is off.
func newMetrics(cfg config.Config, st stores, clk clock.Clock, log *slog.Logger) *metrics.Metrics {
	if !cfg.MetricsOn() {
		return nil
	}
	m := metrics.New(clk, log)
	m.WatchPools(st.pg, st.ch)
	m.WatchOutboxes(st.pg)
	m.WatchCredits(st.pg)
	return m
}

// serveMetrics serves GET /metrics on a listener of its own when MTK_METRICS names one (else
// the API's listener serves it, or nothing does); stop closes it.
func serveMetrics(cfg config.Config, m *metrics.Metrics, log *slog.Logger) (stop func(), err error) {
	addr := cfg.MetricsListen()
	if m == nil || addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (MTK_METRICS): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "listen", addr, "error", err.Error())
		}
	}()
	return func() { srv.Close() }, nil
}
