package schema_test

import (
	"context"
	"reflect"
	"testing"

	"mtk/internal/testenv"
	"mtk/schema"
)

func TestMigrationsApplyOnce(t *testing.T) {
	ctx := context.Background()
	pg := testenv.Postgres(t) // already migrated from the template
	if done, err := schema.MigratePostgres(ctx, pg.Pool); err != nil || len(done) != 0 {
		t.Fatalf("second postgres run applied %v, %v", done, err)
	}
	migs, _ := schema.Load("postgres")
	var n int
	if err := pg.Pool.QueryRow(ctx, "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil || n != len(migs) {
		t.Fatalf("recorded %d postgres migrations of %d: %v", n, len(migs), err)
	}
	ch := testenv.ClickHouse(t)
	if done, err := schema.MigrateClickHouse(ctx, ch.Conn); err != nil || len(done) != 0 {
		t.Fatalf("second clickhouse run applied %v, %v", done, err)
	}
}

func TestStatements(t *testing.T) {
	sql := "-- a comment; not a statement\nCREATE TABLE a (x Int8); -- trailing comment\n\nCREATE TABLE b (\n  y String -- ;\n);\nSELECT 1"
	want := []string{"CREATE TABLE a (x Int8)", "CREATE TABLE b (\n  y String -- ;\n)", "SELECT 1"}
	if got := schema.Statements(sql); !reflect.DeepEqual(got, want) {
		t.Fatalf("Statements = %q, want %q", got, want)
	}
}

func TestLoadOrdersByVersion(t *testing.T) {
	for _, store := range []string{"postgres", "clickhouse"} {
		migs, err := schema.Load(store)
		if err != nil || len(migs) == 0 {
			t.Fatalf("%s: %v", store, err)
		}
		for i := 1; i < len(migs); i++ {
			if migs[i].Version <= migs[i-1].Version {
				t.Fatalf("%s: %s after %s", store, migs[i].Name, migs[i-1].Name)
			}
		}
	}
}
