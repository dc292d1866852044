package main

import (
	"context"
	"fmt"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/schema"
)

// stores are the open connections to PostgreSQL and ClickHouse.
type stores struct {
	pg *pgxpool.Pool
	ch driver.Conn
}

func (s stores) Close() {
	if s.pg != nil {
		s.pg.Close()
	}
	if s.ch != nil {
		s.ch.Close()
	}
}

// loadConfig reads and validates the configuration, creating the development JWT secret when
// none is set.
func loadConfig() (config.Config, error) { return completeConfig(config.FromEnv()) }

// completeConfig validates cfg, creating the development JWT secret when none is set.
func completeConfig(cfg config.Config) (config.Config, error) {
	if err := cfg.EnsureJWTSecret(); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

// openStores connects to both stores and applies pending migrations (to every server of the
// ClickHouse cluster when the configuration names one).
func openStores(ctx context.Context, cfg config.Config) (stores, error) {
	var s stores
	var err error
	if s.pg, err = db.OpenPostgres(ctx, cfg.PostgresURL); err != nil {
		return s, err
	}
	if s.ch, err = db.OpenClickHouseCluster(ctx, cfg.ClickHouseURL, cfg.ClickHouseCluster); err != nil {
		s.Close()
		return s, err
	}
	if _, err := schema.MigratePostgres(ctx, s.pg); err != nil {
		s.Close()
		return s, fmt.Errorf("migrate postgres: %w", err)
	}
	migrateCH := schema.MigrateClickHouse
	if cfg.ClickHouseCluster != "" {
		migrateCH = func(ctx context.Context, conn driver.Conn) ([]string, error) {
			return schema.MigrateClickHouseCluster(ctx, conn, cfg.ClickHouseCluster)
		}
	}
	if _, err := migrateCH(ctx, s.ch); err != nil {
		s.Close()
		return s, fmt.Errorf("migrate clickhouse: %w", err)
	}
	return s, nil
}

// withStores loads the configuration, opens (and migrates) both stores, runs fn, and closes them.
func withStores(ctx context.Context, fn func(config.Config, stores) error) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	st, err := openStores(ctx, cfg)
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(cfg, st)
}
