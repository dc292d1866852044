package db_test

import (
	"context"
	"errors"
	"testing"

	"mtk/internal/db"
	"mtk/internal/testenv"
)

// A gated connection writes nothing before Migrated, and says so as an outage (writers keep their
// rows and retry); reads pass, and writes pass once it is open.
func TestMigrationGateHoldsWrites(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	if err := ch.Conn.Exec(ctx, "CREATE TABLE gated (n UInt8) ENGINE = Memory"); err != nil {
		t.Fatal(err)
	}
	g := db.GateWrites(ch.Conn)
	count := func() uint64 {
		t.Helper()
		var n uint64
		if err := g.QueryRow(ctx, "SELECT count() FROM gated").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if err := g.Exec(ctx, "INSERT INTO gated SELECT 1"); !errors.Is(err, db.ErrNotMigrated) || !db.Unavailable(err) {
		t.Fatalf("Exec before Migrated: %v", err)
	}
	if _, err := g.PrepareBatch(ctx, "INSERT INTO gated"); !errors.Is(err, db.ErrNotMigrated) {
		t.Fatalf("PrepareBatch before Migrated: %v", err)
	}
	if n := count(); n != 0 {
		t.Fatalf("%d rows written through a closed gate", n)
	}
	g.Migrated()
	b, err := g.PrepareBatch(ctx, "INSERT INTO gated (n)")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Append(uint8(1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Send(); err != nil {
		t.Fatal(err)
	}
	if err := g.Exec(ctx, "INSERT INTO gated SELECT 2"); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 2 {
		t.Fatalf("%d rows after the gate opened, want 2", n)
	}
}
