package db_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"mtk/internal/db"
	"mtk/internal/testenv"
)

// Refused tells a value PostgreSQL refuses (what a batch may be stored again without) from an
// outage or a bug, on the real server's errors.
func TestRefused(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	if _, err := pg.Pool.Exec(ctx, "CREATE TABLE t (k text PRIMARY KEY, n smallint NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Pool.Exec(ctx, "INSERT INTO t VALUES ('a', 1)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		sql     string
		args    []any
		refused bool
	}{
		{"a NUL in a text", "INSERT INTO t VALUES ($1, 1)", []any{"b\x00"}, true},
		{"invalid UTF-8 in a text", "INSERT INTO t VALUES ($1, 1)", []any{"b\xff"}, true},
		{"a number out of range", "INSERT INTO t VALUES ('c', $1::int)", []any{70000}, true},
		{"a duplicate key", "INSERT INTO t VALUES ('a', 1)", nil, true},
		{"a null in a NOT NULL column", "INSERT INTO t VALUES ('d', NULL)", nil, true},
		{"an index row too large", "INSERT INTO t VALUES (repeat(md5(random()::text), 100000), 1)", nil, true},
		{"a statement timeout", "SET LOCAL statement_timeout = 10; SELECT pg_sleep(1)", nil, false},
		{"a missing table", "INSERT INTO missing VALUES (1)", nil, false},
		{"a syntax error", "INSERT INTO", nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pg.Pool.Exec(ctx, c.sql, c.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if got := db.Refused(fmt.Errorf("wrapped: %w", err)); got != c.refused {
				t.Fatalf("Refused(%v) = %v, want %v", err, got, c.refused)
			}
		})
	}
	for _, code := range []string{"08006", "57P01", "53300", "40001", "40P01"} {
		if db.Refused(&pgconn.PgError{Code: code}) {
			t.Errorf("SQLSTATE %s is refused", code)
		}
	}
	if db.Refused(nil) || db.Refused(context.DeadlineExceeded) {
		t.Error("a nil or non-PostgreSQL error is refused")
	}
}
