// Package pgcost measures what a benchmark's server costs PostgreSQL: the round trips its pool
// sends (Counter, a pgx tracer: a statement sent alone is one, a batch, which pgx pipelines, is
// one) and the CPU of the backends serving a database (BackendCPU, from /proc/<pid>/stat: the
// benchmark runs on the server's machine).
package pgcost

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/benchmarks/internal/procstat"
)

// Counter counts the round trips and statements sent through the pools it traces.
type Counter struct{ trips, statements atomic.Int64 }

// Trips is the round trips counted so far.
func (c *Counter) Trips() int64 { return c.trips.Load() }

// Statements is the statements counted so far (a batch's each).
func (c *Counter) Statements() int64 { return c.statements.Load() }

func (c *Counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.trips.Add(1)
	c.statements.Add(1)
	return ctx
}

func (c *Counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *Counter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trips.Add(1)
	return ctx
}

func (c *Counter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.statements.Add(1)
}

func (c *Counter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// Traced is a pool over cfg whose round trips c counts.
func (c *Counter) Traced(ctx context.Context, cfg *pgxpool.Config) (*pgxpool.Pool, error) {
	cfg = cfg.Copy()
	cfg.ConnConfig.Tracer = c
	return pgxpool.NewWithConfig(ctx, cfg)
}

// CPU is the CPU each backend of a database had used at one moment, by pid.
type CPU map[int]time.Duration

// BackendCPU reads the CPU of the backends pg_stat_activity lists for database (through q).
func BackendCPU(ctx context.Context, q *pgxpool.Pool, database string) (CPU, error) {
	rows, err := q.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = $1", database)
	if err != nil {
		return nil, err
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		return nil, err
	}
	out := CPU{}
	for _, pid := range pids {
		out[pid] = procstat.CPU(pid)
	}
	return out, nil
}

// Since is the CPU spent from a to c (a backend that started in between counts from zero).
func (c CPU) Since(a CPU) time.Duration {
	var d time.Duration
	for pid, cpu := range c {
		d += cpu - a[pid]
	}
	return d
}
