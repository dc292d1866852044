package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"mtk/api"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/jobs"
	"mtk/internal/wire"
)

// shutdownGrace is how long in-flight requests get after SIGTERM/SIGINT.
const shutdownGrace = 15 * time.Second

func runServe(ctx context.Context, args []string, out io.Writer) error {
	rest, err := parseFlags(flag.NewFlagSet("serve", flag.ContinueOnError), args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{"takes no arguments"}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	st, err := openServeStores(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	clk := clock.Real{}
	m := newMetrics(cfg, st, clk, logger)
	sys := wire.Build(cfg, st.pg, st.ch, wire.Options{Clock: clk, Logger: logger, Metrics: m})
	app := api.New(sys)
	defer sys.Close() // after the HTTP server stopped: stores what is queued
	wctx, stopWorkers := context.WithCancel(ctx)
	workers := sys.StartWorkers(wctx)
	defer func() { stopWorkers(); workers.Wait() }()
	runner, err := jobs.New(ctx, logger, sys.Jobs())
	if err != nil {
		return err
	}
	runner.Start()
	defer runner.Stop()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	stopMetrics, err := serveMetrics(cfg, m, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer stopMetrics()
	logger.Info("mtk serving", "listen", cfg.Listen, "base_url", cfg.BaseURL, "rate_limits", cfg.RateLimits,
		"metrics", cfg.Metrics, "clickhouse_cluster", cfg.ClickHouseCluster)
	served := make(chan error, 1)
	go func() { served <- app.Listener(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	logger.Info("mtk shutting down", "grace", shutdownGrace.String())
	if err := app.ShutdownWithTimeout(shutdownGrace); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}

func runMigrate(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	cluster := fs.String("cluster", "", "the ClickHouse cluster to create the tables on (default $MTK_CLICKHOUSE_CLUSTER)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{"takes no arguments but --cluster"}
	}
	cfg := config.FromEnv()
	if *cluster != "" {
		cfg.ClickHouseCluster = *cluster
	}
	cfg, err = completeConfig(cfg)
	if err != nil {
		return err
	}
	st, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	st.Close()
	if cfg.ClickHouseCluster != "" {
		fmt.Fprintf(out, "migrations applied (ClickHouse cluster %s)\n", cfg.ClickHouseCluster)
		return nil
	}
	fmt.Fprintln(out, "migrations applied")
	return nil
}
