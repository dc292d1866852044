package db

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// ErrNotMigrated is what a write through a MigrationGate answers before its migrations ran: the
// store is not ready, as if it were down (Unavailable), so writers keep their rows and retry.
var ErrNotMigrated = errors.New("clickhouse: migrations not applied yet")

// MigrationGate is a ClickHouse connection whose writes (PrepareBatch, Exec: mtk's only ways to
// write; the driver's deprecated AsyncInsert is not used) wait for Migrated.
// mtk serve starts while ClickHouse is down and migrates it once it is back; a drainer's insert
// that reached it first would land in a table a pending migration drops and makes again (credits
// 0015) and be lost with it, though PostgreSQL was told it was stored. Reads pass: a query before
// the migrations reads the old tables, which loses nothing.
type MigrationGate struct {
	driver.Conn
	migrated atomic.Bool
}

// GateWrites wraps conn; its writes fail with ErrNotMigrated until Migrated is called.
func GateWrites(conn driver.Conn) *MigrationGate { return &MigrationGate{Conn: conn} }

// Migrated opens the gate: the migrations were applied.
func (g *MigrationGate) Migrated() { g.migrated.Store(true) }

// PrepareBatch is the connection's, once migrated.
func (g *MigrationGate) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	if !g.migrated.Load() {
		return nil, ErrNotMigrated
	}
	return g.Conn.PrepareBatch(ctx, query, opts...)
}

// Exec is the connection's, once migrated.
func (g *MigrationGate) Exec(ctx context.Context, query string, args ...any) error {
	if !g.migrated.Load() {
		return ErrNotMigrated
	}
	return g.Conn.Exec(ctx, query, args...)
}
