package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/platform"
	"mtk/schema"
)

// withDatabase returns the URL raw with its path (the database name) replaced.
func withDatabase(raw, name string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

// openPostgres opens the benchmark's own PostgreSQL database, creating it when missing, and
// applies the migrations. Other databases on the server are left alone.
func openPostgres(ctx context.Context, serverURL, name string) (*pgxpool.Pool, error) {
	adminURL, err := withDatabase(serverURL, "postgres")
	if err != nil {
		return nil, err
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return nil, fmt.Errorf("postgres at %s does not answer (run scripts/services.sh start): %w", serverURL, err)
	}
	defer admin.Close(ctx)
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return nil, err
	}
	if !exists {
		// name was checked by validName.
		if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
			return nil, fmt.Errorf("create postgres database %s: %w", name, err)
		}
	}
	u, err := withDatabase(serverURL, name)
	if err != nil {
		return nil, err
	}
	pool, err := db.OpenPostgres(ctx, u)
	if err != nil {
		return nil, err
	}
	if _, err := schema.MigratePostgres(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("migrate postgres %s: %w", name, err)
	}
	return pool, nil
}

// openClickHouse opens the benchmark's own ClickHouse database with mtk's pool settings,
// creating it when missing, and applies the migrations. It returns the database's URL too.
func openClickHouse(ctx context.Context, serverURL, name string) (driver.Conn, string, error) {
	u, err := withDatabase(serverURL, name)
	if err != nil {
		return nil, "", err
	}
	conn, err := db.OpenClickHouse(ctx, u)
	if err != nil {
		return nil, "", err
	}
	if _, err := schema.MigrateClickHouse(ctx, conn); err != nil {
		conn.Close()
		return nil, "", fmt.Errorf("migrate clickhouse %s: %w", name, err)
	}
	return conn, u, nil
}

// recreateClickHouse empties the benchmark's database by dropping and creating it again.
func recreateClickHouse(ctx context.Context, conn driver.Conn, name string) error {
	// name was checked by validName.
	if err := conn.Exec(ctx, "DROP DATABASE IF EXISTS `"+name+"`"); err != nil {
		return fmt.Errorf("drop clickhouse database %s: %w", name, err)
	}
	if err := conn.Exec(ctx, "CREATE DATABASE `"+name+"`"); err != nil {
		return fmt.Errorf("create clickhouse database %s: %w", name, err)
	}
	return nil
}

// validName accepts the database names the benchmark may create and drop: mtk_bench, or a name
// that starts with mtk_bench_query, so that a typo cannot drop another engineer's database
// (mtk_bench_ingest, say).
func validName(s string) bool {
	if s != "mtk_bench" && !strings.HasPrefix(s, "mtk_bench_query") || len(s) > 63 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// dropPostgres drops the benchmark's PostgreSQL database (the dashboard run makes it afresh
// when it regenerates the ClickHouse data, so that what PostgreSQL says of ClickHouse, such as
// sync snapshots and data versions, starts from nothing too).
func dropPostgres(ctx context.Context, serverURL, name string) error {
	adminURL, err := withDatabase(serverURL, "postgres")
	if err != nil {
		return err
	}
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	// name was checked by validName.
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop postgres database %s: %w", name, err)
	}
	return nil
}

// benchStores are the run's own databases (pg and ch, with their URLs) and the bench tenant with
// a key made for the run.
type benchStores struct {
	pg           *pgxpool.Pool
	ch           driver.Conn
	pgURL, chURL string
	t            tenant
	close        func() // revokes the run's key and closes both pools
}

// openBenchStores opens the bench databases of f on the servers of MTK_POSTGRES_URL and
// MTK_CLICKHOUSE_URL and makes the tenant and the run's key.
func openBenchStores(ctx context.Context, f flags) (*benchStores, error) {
	env := config.FromEnv()
	pgURL, err := withDatabase(env.PostgresURL, f.dbName)
	if err != nil {
		return nil, err
	}
	pg, err := openPostgres(ctx, env.PostgresURL, f.dbName)
	if err != nil {
		return nil, err
	}
	store := platform.New(pg, clock.Real{})
	t, err := ensureTenant(ctx, store)
	if err != nil {
		pg.Close()
		return nil, err
	}
	ch, chURL, err := openClickHouse(ctx, env.ClickHouseURL, f.dbName)
	if err != nil {
		store.Keys.RevokeAPIKey(context.WithoutCancel(ctx), t.key.ID) //nolint:errcheck // a leftover key of a bench database
		pg.Close()
		return nil, err
	}
	return &benchStores{pg: pg, ch: ch, pgURL: pgURL, chURL: chURL, t: t, close: func() {
		ch.Close()
		store.Keys.RevokeAPIKey(context.WithoutCancel(ctx), t.key.ID) //nolint:errcheck // a leftover key of a bench database
		pg.Close()
	}}, nil
}
