// Package db opens mtk's two stores: PostgreSQL (platform entities) through a pgx pool and
// ClickHouse (metric facts) through clickhouse-go's native protocol.
package db

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
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
	if name != "default" {
		if err := createClickHouseDatabase(ctx, *opts, name); err != nil {
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

func createClickHouseDatabase(ctx context.Context, opts clickhouse.Options, name string) error {
	opts.Auth.Database = "default"
	opts.MaxOpenConns, opts.MaxIdleConns = 1, 1
	conn, err := clickhouse.Open(&opts)
	if err != nil {
		return fmt.Errorf("clickhouse: %w", err)
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// The name comes from configuration and was checked by validName.
	if err := conn.Exec(cctx, "CREATE DATABASE IF NOT EXISTS `"+name+"`"); err != nil {
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
