package wire_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mtk/internal/config"
	"mtk/internal/testenv"
	"mtk/internal/wire"
)

func testConfig(pg testenv.PG, ch testenv.CH) config.Config {
	return config.Config{Listen: "127.0.0.1:0", ClickHouseURL: ch.URL, PostgresURL: pg.URL,
		JWTSecret: "wire-test-secret-0123456789abcdef0123", BaseURL: "http://127.0.0.1"}
}

// A Redis URL go-redis cannot read is Build's error, naming the variable, not a panic.
func TestBuildRefusesABadRedisURL(t *testing.T) {
	pg, ch := testenv.Postgres(t), testenv.ClickHouse(t)
	cfg := testConfig(pg, ch)
	cfg.RedisURL = "http://127.0.0.1:16379"
	sys, err := wire.Build(cfg, pg.Pool, ch.Conn, wire.Options{})
	if err == nil {
		sys.Close()
		t.Fatal("Build accepted a bad MTK_REDIS_URL")
	}
	if !strings.Contains(err.Error(), "MTK_REDIS_URL") {
		t.Fatalf("the error does not name the variable: %v", err)
	}
}

// Close stops what Build and StartWorkers started and returns once it has ended: the data
// versions' listener has let go of its connection (versions unknown) by then. A second Close
// does nothing.
func TestCloseWaitsForWhatBuildStarted(t *testing.T) {
	pg, ch := testenv.Postgres(t), testenv.ClickHouse(t)
	sys, err := wire.Build(testConfig(pg, ch), pg.Pool, ch.Conn, wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := sys.StartWorkers(); err != nil {
		t.Fatal(err)
	}
	if err := sys.StartWorkers(); err == nil {
		t.Fatal("the workers started twice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sys.Versions.Heard(ctx); err != nil {
		t.Fatal(err)
	}
	sys.Close()
	if sys.Versions.Live() {
		t.Fatal("Close returned while the listener still listened")
	}
	sys.Close()
	if err := sys.StartJobs(); err == nil {
		t.Fatal("jobs started after Close")
	}
}
