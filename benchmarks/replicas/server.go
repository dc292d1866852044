package main

import (
	"context"
	"io"
	"log/slog"
	"net"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/wire"
)

// counted is mtk's server in this process, built as mtk serve builds it, whose stores count
// what it sends them (pgCounter, chCounter); with workers it also runs the drainers.
type counted struct {
	base  string
	pg    *pgxpool.Pool
	trips *pgCounter
	ch    *chCounter
	close func()
}

// startCounted serves mtk on a loopback port over the env's databases, rate limits on (through
// redisURL) or off.
func startCounted(ctx context.Context, e *env, limits bool, redisURL string, workers bool) (*counted, error) {
	plain, err := db.OpenPostgres(ctx, e.pgURL)
	if err != nil {
		return nil, err
	}
	cfg := plain.Config()
	plain.Close()
	s := &counted{trips: &pgCounter{}}
	cfg.ConnConfig.Tracer = s.trips
	if s.pg, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		return nil, err
	}
	ch, err := db.OpenClickHouse(ctx, e.chURL)
	if err != nil {
		s.pg.Close()
		return nil, err
	}
	s.ch = &chCounter{Conn: ch}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.pg.Close()
		ch.Close()
		return nil, err
	}
	s.base = "http://" + ln.Addr().String()
	sc := config.Config{Listen: ln.Addr().String(), BaseURL: s.base, RateLimits: config.Off, JWTSecret: "bench-replicas-secret-bench-replicas-secret"}
	if limits {
		sc.RateLimits, sc.RedisURL = config.On, redisURL
	}
	sys, err := wire.Build(sc, s.pg, s.ch, wire.Options{Clock: clock.Real{}, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		RedisPrefix: "mtk_bench_replicas:"})
	if err == nil && workers {
		if err = sys.StartWorkers(); err != nil {
			sys.Close()
		}
	}
	if err != nil {
		ln.Close()
		s.pg.Close()
		ch.Close()
		return nil, err
	}
	app := api.New(sys.API())
	go app.Listener(ln) //nolint:errcheck // stopped by close
	s.close = func() {
		app.Shutdown() //nolint:errcheck
		sys.Close()    // stops the workers and waits for them
		s.pg.Close()
		ch.Close()
	}
	return s, nil
}
