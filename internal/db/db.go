// Package db opens mtk's two stores: PostgreSQL (platform entities) through a pgx pool and
// ClickHouse (metric facts) through clickhouse-go's native protocol.
package db

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/schema"
)

// OpenPostgres connects a pool and checks that the server answers.
func OpenPostgres(ctx context.Context, url string) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres url: %w", err)
	}
	if cfg.MaxConns < 16 {
		cfg.MaxConns = 16
	}
	// A statement whose context ends is canceled on the server (a cancel request) and the call
	// returns once the server has ended it: a write waiting on a lock past its request's deadline
	// cannot commit after the client was answered 503, and the connection stays usable (pgx's
	// default closes it and cancels in the background, so a frozen server would have every
	// waiting request's connection opened again). A server that does not act on the cancel within
	// cancelGrace (stopped, unreachable) has the connection closed under it.
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: cancelGrace}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres at %s does not answer (is `make services` running?): %w", cfg.ConnConfig.Host, err)
	}
	return pool, nil
}

// cancelGrace is how long a canceled statement's server has to end it before the client closes
// the connection.
const cancelGrace = 500 * time.Millisecond

// ClickHouseOptions parses a clickhouse:// DSN into driver options with mtk's pool settings.
func ClickHouseOptions(dsn string) (*clickhouse.Options, error) {
	opts, err := clickhouse.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("clickhouse url: %w", err)
	}
	if opts.MaxOpenConns < 32 {
		opts.MaxOpenConns = 32
	}
	if opts.MaxIdleConns < 16 {
		opts.MaxIdleConns = 16
	}
	if opts.DialTimeout == 0 || opts.DialTimeout > 5*time.Second {
		opts.DialTimeout = 5 * time.Second
	}
	opts.Compression = &clickhouse.Compression{Method: clickhouse.CompressionLZ4}
	return opts, nil
}

// OpenClickHouse connects to the DSN's database, creating the database first when missing.
func OpenClickHouse(ctx context.Context, dsn string) (driver.Conn, error) {
	return OpenClickHouseCluster(ctx, dsn, "")
}

// OpenClickHouseCluster connects to the DSN's database on a server of the named cluster
// (OpenClickHouse when cluster is ""), creating the database on every server of the cluster
// first when missing. Its inserts into Distributed tables return once every shard has stored
// its rows (insert_distributed_sync), so that stored still means stored before an answer.
func OpenClickHouseCluster(ctx context.Context, dsn, cluster string) (driver.Conn, error) {
	opts, err := ClickHouseOptions(dsn)
	if err != nil {
		return nil, err
	}
	name := opts.Auth.Database
	if name == "" {
		name = "default"
		opts.Auth.Database = name
	}
	if !validName(name) {
		return nil, fmt.Errorf("clickhouse url: database name %q: use letters, digits and _", name)
	}
	if cluster != "" {
		if !schema.ValidClusterName(cluster) {
			return nil, fmt.Errorf("clickhouse cluster %q: use letters, digits, _, . and -", cluster)
		}
		opts.Settings = clickhouse.Settings{"insert_distributed_sync": 1}
	}
	if name != "default" {
		if err := createClickHouseDatabase(ctx, *opts, name, cluster); err != nil {
			return nil, err
		}
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := conn.Ping(pctx); err != nil {
		conn.Close()
		return nil, fmt.Errorf("clickhouse at %v does not answer (is `make services` running?): %w", opts.Addr, err)
	}
	return conn, nil
}

// DialClickHouseOnUse is a connection to the DSN's database that dials when used, without
// creating the database or asking the server anything now: for a server that must start while
// ClickHouse is down (its calls fail until it is back, and its pool then dials again).
func DialClickHouseOnUse(dsn, cluster string) (driver.Conn, error) {
	opts, err := ClickHouseOptions(dsn)
	if err != nil {
		return nil, err
	}
	if opts.Auth.Database == "" {
		opts.Auth.Database = "default"
	}
	if cluster != "" {
		opts.Settings = clickhouse.Settings{"insert_distributed_sync": 1}
	}
	conn, err := clickhouse.Open(opts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse: %w", err)
	}
	return conn, nil
}

func createClickHouseDatabase(ctx context.Context, opts clickhouse.Options, name, cluster string) error {
	opts.Auth.Database = "default"
	opts.MaxOpenConns, opts.MaxIdleConns = 1, 1
	conn, err := clickhouse.Open(&opts)
	if err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	defer conn.Close()
	// ON CLUSTER waits for every server; ClickHouse gives up after 180 s by itself.
	timeout, stmt := 10*time.Second, "CREATE DATABASE IF NOT EXISTS `"+name+"`"
	if cluster != "" {
		timeout, stmt = 3*time.Minute, stmt+" ON CLUSTER `"+cluster+"`"
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The names come from configuration and were checked by validName and ValidClusterName.
	if err := conn.Exec(cctx, stmt); err != nil {
		return fmt.Errorf("clickhouse at %v: create database %s (is `make services` running?): %w", opts.Addr, name, err)
	}
	return nil
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
