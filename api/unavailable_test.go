package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api"
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
	e.app = api.New(systemOver(t, e.cfg, pool, e.ch, clk, slog.New(slog.NewJSONHandler(&bytes.Buffer{}, nil))).API())
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

// A PostgreSQL that ends the connection under a request (an administrator's shutdown, SQLSTATE
// 57P01, as pg_terminate_backend sends) is a 503 with Retry-After, as a refused connection is.
func TestPostgresShutdownMidRequestIs503(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	conn, err := e.store.Pool().Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var pid int
	if err := conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Pool().Exec(ctx, "SELECT pg_terminate_backend($1)", pid); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, "SELECT 1")
	if err == nil {
		t.Fatal("the terminated connection still answered")
	}
	if got := api.ToAppError(err); got.Status != 503 || got.RetryAfter == 0 {
		t.Fatalf("%v maps to %d (Retry-After %d), want 503", err, got.Status, got.RetryAfter)
	}
}

// A statement still running when its context's deadline passes is canceled on the server, and
// the call returns once it is (so that a write answered 503 cannot commit after the answer); the
// connection stays usable, so a frozen PostgreSQL does not make every waiting request's
// connection be opened again. The cancellation (SQLSTATE 57014) is a 503 with Retry-After.
func TestStatementPastItsDeadlineIsCanceledAnd503(t *testing.T) {
	e := newEnv(t)
	conn, err := e.store.Pool().Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = conn.Exec(ctx, "SELECT pg_sleep(30), 'deadline-test'")
	if err == nil {
		t.Fatal("the statement outlived its deadline")
	}
	if got := api.ToAppError(err); got.Status != 503 || got.RetryAfter == 0 {
		t.Fatalf("%v maps to %d (Retry-After %d), want 503", err, got.Status, got.RetryAfter)
	}
	var running int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE state = 'active' AND query LIKE '%deadline-test%' AND pid <> pg_backend_pid()`).Scan(&running); err != nil {
		t.Fatalf("the connection is not usable after the canceled statement: %v", err)
	}
	if running != 0 {
		t.Fatalf("%d statements still run on the server after their deadline", running)
	}
}

// A ClickHouse outage answers a query 503 and leaves exactly one log line that holds both the
// request id and the driver's cause, which the client's envelope does not show.
func TestClickHouseOutageLogsItsCauseOnce(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	down, err := clickhouse.Open(&clickhouse.Options{Addr: []string{"127.0.0.1:1"}, DialTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	var logs bytes.Buffer
	cfg := e.cfg
	cfg.ClickHouseHTTPURL = "http://127.0.0.1:1" // the reads' path is down too
	e.app = api.New(systemOver(t, cfg, e.store.Pool(), down, e.clock, slog.New(slog.NewJSONHandler(&logs, nil))).API())
	r := e.do("POST", "/v3/query", map[string]any{"project_id": tn.project.ID, "fields": []string{"spend"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}}, bearer(tn.readKey)...)
	wantError(t, r, 503, "api_error", "service_unavailable")
	const cause = "127.0.0.1:1" // the unreachable store's address, in the driver's dial error
	if strings.Contains(string(r.Body), cause) {
		t.Fatalf("the cause leaks to the client: %s", r.Body)
	}
	rid := r.Header.Get("X-Request-Id")
	var found []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var line map[string]any
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", l)
		}
		if msg, _ := line["error"].(string); line["request_id"] == rid && strings.Contains(msg, cause) {
			found = append(found, line)
		}
	}
	if len(found) != 1 || found[0]["level"] != "ERROR" || found[0]["status"] != 503.0 {
		t.Fatalf("want one ERROR line with request id %s and the cause, got %v in\n%s", rid, found, logs.String())
	}
}
