package testenv

import (
	"context"
	"testing"
)

func TestDatabasesAreMigratedAndIsolated(t *testing.T) {
	ctx := context.Background()
	a, b := Postgres(t), Postgres(t)
	if a.URL == b.URL {
		t.Fatalf("two tests share %s", a.URL)
	}
	if _, err := a.Pool.Exec(ctx, "INSERT INTO workspaces (id, name) VALUES ('ws_a', 'A')"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := b.Pool.QueryRow(ctx, "SELECT count(*) FROM workspaces").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("database b sees %d workspaces of database a", n)
	}

	ch := ClickHouse(t)
	var migrated uint64
	if err := ch.Conn.QueryRow(ctx, "SELECT count() FROM schema_migrations").Scan(&migrated); err != nil {
		t.Fatal(err)
	}
	if migrated == 0 {
		t.Fatal("clickhouse database has no recorded migrations")
	}
}
