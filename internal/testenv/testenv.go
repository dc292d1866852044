// Package testenv gives each integration test its own PostgreSQL and ClickHouse database, migrated
// (or empty, for the upgrade tests, which migrate in steps) and dropped when the test ends. The servers are the real ones that `make services` starts (or
// those MTK_POSTGRES_URL and MTK_CLICKHOUSE_URL name). A server that does not answer fails the
// test: it never skips. ClickHouseCluster does the same on the two-shard test cluster that
// scripts/cluster.sh starts. NewRedis gives a test its own key prefix on the Redis server.
package testenv

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/ids"
	"mtk/internal/pglock"
	"mtk/schema"
)

// PG is a test's own PostgreSQL database.
type PG struct {
	Pool *pgxpool.Pool
	URL  string
}

// CH is a test's own ClickHouse database.
type CH struct {
	Conn driver.Conn
	URL  string
	Name string
	// HTTPURL is the same server's HTTP interface (MTK_CH_HTTP_PORT), for
	// config.Config.ClickHouseHTTPURL.
	HTTPURL string
}

func postgresURL() string {
	if v := os.Getenv("MTK_POSTGRES_URL"); v != "" {
		return v
	}
	return config.DefaultPostgresURL
}

func clickhouseURL() string {
	if v := os.Getenv("MTK_CLICKHOUSE_URL"); v != "" {
		return v
	}
	return config.DefaultClickHouseURL
}

// withDatabase returns u with its path (the database name) replaced.
func withDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

var (
	templateOnce sync.Once
	templateName string
	templateErr  error
)

// templateLock serialises template creation across test processes (go test runs packages in
// parallel).
const templateLock = pglock.TestTemplate

// migrationsHash names the template after the migrations, so that a changed migration makes a
// new template rather than reusing a stale one.
func migrationsHash() string {
	migs, err := schema.Load("postgres")
	if err != nil {
		panic(err)
	}
	h := sha256.New()
	for _, m := range migs {
		h.Write([]byte(m.Name))
		h.Write([]byte(m.SQL))
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

func ensureTemplate(ctx context.Context) (string, error) {
	templateOnce.Do(func() {
		templateName = "mtk_tmpl_" + migrationsHash()
		templateErr = buildTemplate(ctx, templateName)
	})
	return templateName, templateErr
}

func buildTemplate(ctx context.Context, name string) error {
	admin, err := pgx.Connect(ctx, withDatabase(postgresURL(), "postgres"))
	if err != nil {
		return fmt.Errorf("postgres at %s does not answer; run `make services`: %w", postgresURL(), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return err
	}
	defer admin.Exec(ctx, "SELECT pg_advisory_unlock($1)", templateLock) //nolint:errcheck
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	building := name + "_building"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return err
	}
	pool, err := db.OpenPostgres(ctx, withDatabase(postgresURL(), building))
	if err != nil {
		return err
	}
	_, err = schema.MigratePostgres(ctx, pool)
	pool.Close()
	if err != nil {
		return err
	}
	_, err = admin.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name)
	return err
}

// Postgres creates a migrated database for t, cloned from a template, and drops it afterwards.
func Postgres(t testing.TB) PG {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tmpl, err := ensureTemplate(ctx)
	if err != nil {
		t.Fatalf("testenv: postgres template: %v", err)
	}
	return newPostgres(t, " TEMPLATE "+tmpl)
}

// EmptyPostgres creates a database for t with no migration applied, and drops it afterwards:
// for the upgrade tests, which migrate it in steps.
func EmptyPostgres(t testing.TB) PG {
	t.Helper()
	return newPostgres(t, "")
}

// newPostgres creates a database for t with CREATE DATABASE's options (its template) and drops
// it afterwards.
func newPostgres(t testing.TB, options string) PG {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	name := "test_" + strings.ReplaceAll(ids.Random(8), "-", "")
	admin, err := pgx.Connect(ctx, withDatabase(postgresURL(), "postgres"))
	if err != nil {
		t.Fatalf("testenv: postgres at %s does not answer; run `make services`: %v", postgresURL(), err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+options); err != nil {
		t.Fatalf("testenv: create database: %v", err)
	}
	u := withDatabase(postgresURL(), name)
	pool, err := db.OpenPostgres(ctx, u)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		pool.Close()
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(cctx, withDatabase(postgresURL(), "postgres"))
		if err != nil {
			t.Errorf("testenv: drop %s: %v", name, err)
			return
		}
		defer c.Close(cctx)
		if _, err := c.Exec(cctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("testenv: drop %s: %v", name, err)
		}
	})
	return PG{Pool: pool, URL: u}
}

// ClickHouse creates a migrated database for t and drops it afterwards.
func ClickHouse(t testing.TB) CH {
	t.Helper()
	c := EmptyClickHouse(t)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	if _, err := schema.MigrateClickHouse(ctx, c.Conn); err != nil {
		t.Fatalf("testenv: clickhouse migrations: %v", err)
	}
	return c
}

// EmptyClickHouse creates a database for t with no migration applied, and drops it afterwards:
// for the upgrade tests, which migrate it in steps.
func EmptyClickHouse(t testing.TB) CH {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	name := "test_" + ids.Random(8)
	u := withDatabase(clickhouseURL(), name)
	conn, err := db.OpenClickHouse(ctx, u)
	if err != nil {
		t.Fatalf("testenv: %v", err)
	}
	t.Cleanup(func() {
		// As long as the set-up may take: a database of some thirty tables and views drops
		// slowly on a loaded server.
		cctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		if err := conn.Exec(cctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("testenv: drop clickhouse %s: %v", name, err)
		}
		conn.Close()
	})
	return CH{Conn: conn, URL: u, Name: name, HTTPURL: clickhouseHTTP()}
}

// ClickHouseOptions returns driver options for the test server, for tests that open their own
// connections.
func ClickHouseOptions(t testing.TB, database string) *clickhouse.Options {
	t.Helper()
	opts, err := db.ClickHouseOptions(withDatabase(clickhouseURL(), database))
	if err != nil {
		t.Fatal(err)
	}
	return opts
}
