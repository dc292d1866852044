package main

import (
	"cmp"
	"context"
	"io"
	"log/slog"
	"net"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/jsonlog"
	"mtk/internal/wire"
)

// counted is mtk's server in this process, built as mtk serve builds it, whose stores count
// what it sends them (pgCounter, chCounter); with workers it also runs the drainers.
type counted struct {
	base  string
	pg    *pgxpool.Pool
	trips *pgCounter
	ch    *chCounter
	sys   *wire.System
	close func()
}

// serving is what a counted server uses Redis for, and whether it drains the outboxes.
type serving struct {
	// limits keeps the rate limits in redisURL's server, shared answers the answers; with
	// neither, the server does not use Redis.
	limits, shared bool
	redisURL       string
	// prefix starts the server's Redis keys; empty means mtk_bench_replicas:.
	prefix  string
	workers bool
}

// startCounted serves mtk on a loopback port over the env's databases, as sv says.
func startCounted(ctx context.Context, e *env, sv serving) (*counted, error) {
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
	if sv.limits {
		sc.RateLimits = config.On
	}
	if !sv.shared {
		sc.SharedAnswers = config.Off
	}
	if sv.limits || sv.shared {
		sc.RedisURL = sv.redisURL
	}
	sys, err := wire.Build(sc, s.pg, s.ch, wire.Options{Clock: clock.Real{}, Logger: slog.New(jsonlog.New(io.Discard, nil)),
		RedisPrefix: cmp.Or(sv.prefix, "mtk_bench_replicas:")})
	if err == nil && sv.workers {
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
	s.sys = sys
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
