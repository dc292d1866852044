package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"time"

	"mtk/api"
	"mtk/engine"
	"mtk/internal/clock"
	"mtk/internal/jobs"
	"mtk/platform"
)

// shutdownGrace is how long in-flight requests get after SIGTERM/SIGINT.
const shutdownGrace = 15 * time.Second

func runServe(ctx context.Context, args []string, out io.Writer) error {
	if len(args) > 0 {
		return usageError{"takes no arguments"}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	st, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	clk := clock.Real{}
	app := api.New(api.Deps{
		Config: cfg, Platform: platform.NewStore(st.pg, clk), ClickHouse: st.ch,
		Engine: engine.New(st.ch, engine.Options{Clock: clk}), Clock: clk, Logger: logger,
		Objects: newObjects(st, clk),
	})
	runner, err := jobs.New(ctx, logger, backgroundJobs(st, clk, logger))
	if err != nil {
		return err
	}
	runner.Start()
	defer runner.Stop()
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	logger.Info("mtk serving", "listen", cfg.Listen, "base_url", cfg.BaseURL, "rate_limits", cfg.RateLimits)
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
	if len(args) > 0 {
		return usageError{"takes no arguments"}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	st, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	st.Close()
	fmt.Fprintln(out, "migrations applied")
	return nil
}
