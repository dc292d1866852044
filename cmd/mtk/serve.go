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
	"mtk/internal/jsonlog"
	"mtk/internal/logbuf"
	"mtk/internal/wire"
)

// shutdownGrace is how long in-flight requests get after SIGTERM/SIGINT.
const shutdownGrace = 15 * time.Second

// role is what one `mtk serve` process runs (--role): the public HTTP API, the background work
// (the sync scheduler, the drainers, the conversion forwarder, the purges and the other jobs), or
// both. Replicas of the API then scale apart from the workers.
type role struct{ api, work bool }

var roles = map[string]role{"all": {api: true, work: true}, "api": {api: true}, "worker": {work: true}}

func runServe(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	roleName := fs.String("role", "all", "what this process runs: all, api (the HTTP API only) or worker (the background work; serves /healthz, /readyz and /metrics only)")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usageError{"takes no arguments but --role"}
	}
	r, ok := roles[*roleName]
	if !ok {
		return usageError{fmt.Sprintf("--role %q: want all, api or worker", *roleName)}
	}
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	// Log lines are batched (a write per line was a system call per request); what a crash may
	// lose is docs/operations.md's "Logs".
	logOut := logbuf.New(os.Stdout)
	defer logOut.Close() //nolint:errcheck // stdout gone: nothing left to tell
	logger := slog.New(jsonlog.New(logOut, nil))
	st, err := openServeStores(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer st.Close()
	clk := clock.Real{}
	m := newMetrics(cfg, st, clk, logger)
	sys, err := wire.Build(cfg, st.pg, st.ch, wire.Options{Clock: clk, Logger: logger, Metrics: m})
	if err != nil {
		return err
	}
	app := api.Worker(sys.API())
	if r.api {
		app = api.New(sys.API())
	}
	// After the HTTP server stopped: stops the workers and jobs, waits for them, stores what is queued.
	defer sys.Close()
	if r.work {
		if err := startWork(sys); err != nil {
			return err
		}
	}
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
	logger.Info("mtk serving", "role", *roleName, "listen", cfg.Listen, "base_url", cfg.BaseURL, "rate_limits", cfg.RateLimitsOn(),
		"metrics", cfg.MetricsOn(), "metrics_listen", cfg.MetricsListen(), "clickhouse_cluster", cfg.ClickHouseCluster)
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

// startWork starts the outbox workers and the scheduled jobs; sys.Close ends them, letting a step
// in progress finish.
func startWork(sys *wire.System) error {
	if err := sys.StartWorkers(); err != nil {
		return err
	}
	return sys.StartJobs()
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
