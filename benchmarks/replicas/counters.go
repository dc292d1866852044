package main

import (
	"context"
	"sync/atomic"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
)

// pgCounter counts what an in-process server sends PostgreSQL: round trips (a statement sent
// alone, or a batch, which pgx pipelines in one) and statements (a batch's each).
type pgCounter struct{ trips, statements atomic.Int64 }

func (c *pgCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.trips.Add(1)
	c.statements.Add(1)
	return ctx
}

func (c *pgCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *pgCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.trips.Add(1)
	return ctx
}

func (c *pgCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {
	c.statements.Add(1)
}

func (c *pgCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// chCounter is a ClickHouse connection that counts the statements sent through it.
type chCounter struct {
	driver.Conn
	statements atomic.Int64
}

func (c *chCounter) Select(ctx context.Context, dest any, query string, args ...any) error {
	c.statements.Add(1)
	return c.Conn.Select(ctx, dest, query, args...)
}

func (c *chCounter) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	c.statements.Add(1)
	return c.Conn.Query(ctx, query, args...)
}

func (c *chCounter) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	c.statements.Add(1)
	return c.Conn.QueryRow(ctx, query, args...)
}

func (c *chCounter) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	c.statements.Add(1)
	return c.Conn.PrepareBatch(ctx, query, opts...)
}

func (c *chCounter) Exec(ctx context.Context, query string, args ...any) error {
	c.statements.Add(1)
	return c.Conn.Exec(ctx, query, args...)
}
