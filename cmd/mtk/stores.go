package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

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
	if _, err := schema.MigratePostgres(ctx, s.pg); err != nil {
		s.Close()
		return s, fmt.Errorf("migrate postgres: %w", err)
	}
	if s.ch, err = openClickHouse(ctx, cfg); err != nil {
		s.Close()
		return s, err
	}
	return s, nil
}

// openClickHouse connects to ClickHouse (creating the database when missing) and migrates it.
func openClickHouse(ctx context.Context, cfg config.Config) (driver.Conn, error) {
	ch, err := db.OpenClickHouseCluster(ctx, cfg.ClickHouseURL, cfg.ClickHouseCluster)
	if err != nil {
		return nil, err
	}
	migrateCH := schema.MigrateClickHouse
	if cfg.ClickHouseCluster != "" {
		migrateCH = func(ctx context.Context, conn driver.Conn) ([]string, error) {
			return schema.MigrateClickHouseCluster(ctx, conn, cfg.ClickHouseCluster)
		}
	}
	if _, err := migrateCH(ctx, ch); err != nil {
		ch.Close()
		return nil, fmt.Errorf("migrate clickhouse: %w", err)
	}
	return ch, nil
}

// openServeStores is openStores for mtk serve, which starts while ClickHouse is down: ingest
// needs PostgreSQL only (events and facts wait in its outboxes), queries answer 503 and /readyz
// says which store is missing. ClickHouse is then reached through a connection that dials on
// use, and opened and migrated again every clickhouseRetry until it answers; the connection
// writes nothing until then.
func openServeStores(ctx context.Context, cfg config.Config, log *slog.Logger) (stores, error) {
	pg, err := db.OpenPostgres(ctx, cfg.PostgresURL)
	if err != nil {
		return stores{}, err
	}
	if _, err := schema.MigratePostgres(ctx, pg); err != nil {
		pg.Close()
		return stores{}, fmt.Errorf("migrate postgres: %w", err)
	}
	ch, err := openClickHouse(ctx, cfg)
	if err == nil {
		return stores{pg: pg, ch: ch}, nil
	}
	log.Warn("clickhouse unavailable at start: serving ingest from PostgreSQL, retrying", "error", err.Error())
	onUse, err := db.DialClickHouseOnUse(cfg.ClickHouseURL, cfg.ClickHouseCluster)
	if err != nil {
		pg.Close()
		return stores{}, err
	}
	// Nothing writes before the migrations ran (db.MigrationGate).
	gate := db.GateWrites(onUse)
	go func() {
		for ctx.Err() == nil {
			time.Sleep(clickhouseRetry)
			if up, err := openClickHouse(ctx, cfg); err == nil {
				up.Close()
				gate.Migrated()
				log.Info("clickhouse is back: migrated")
				return
			}
		}
	}()
	return stores{pg: pg, ch: gate}, nil
}

// clickhouseRetry is how often mtk serve tries again a ClickHouse that was down at start.
const clickhouseRetry = 5 * time.Second

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
