package db_test

import (
	"context"
	"net/url"
	"testing"

	"mtk/internal/db"
	"mtk/internal/testenv"
)

// TestPostgresPlansWithCurrentSizes pins the pool's plan_cache_mode: custom plans by default (a
// generic plan cached while a table was nearly empty would seq-scan it later), and what the URL
// asks for when it asks.
func TestPostgresPlansWithCurrentSizes(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	var mode string
	if err := pg.Pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "force_custom_plan" {
		t.Errorf("plan_cache_mode = %q, want force_custom_plan", mode)
	}
	u, err := url.Parse(pg.URL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("plan_cache_mode", "auto")
	u.RawQuery = q.Encode()
	pool, err := db.OpenPostgres(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pool.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "auto" {
		t.Errorf("with plan_cache_mode=auto in the URL: %q", mode)
	}
}
