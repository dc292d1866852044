package api

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/engine"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/platform"
)

// TestStoreDownIs503 points the platform store at a port where no PostgreSQL listens: calls
// that need it answer 503 service_unavailable with Retry-After, and /readyz says so.
func TestStoreDownIs503(t *testing.T) {
	e := newEnv(t)
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	clk := clock.NewFake(time.Now())
	e.app = New(Deps{
		Config: e.cfg, Platform: platform.NewStore(pool, clk), ClickHouse: e.ch, Clock: clk,
		Engine: engine.New(e.ch, engine.Options{Clock: clk}), Logger: slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil)),
	})
	token, err := auth.NewAPIKeyToken()
	if err != nil {
		t.Fatal(err)
	}
	r := e.do("GET", "/v3/connections/con_x/sync", nil, bearer(token)...)
	wantError(t, r, 503, "api_error", "service_unavailable")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("503 without Retry-After: %v", r.Header)
	}
	if r := e.do("GET", "/readyz", nil); r.Status != 503 || r.JSON(t)["postgres"] != "unavailable" {
		t.Fatalf("readyz: %d %s", r.Status, r.Body)
	}
}
