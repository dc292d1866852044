package wire

import (
	"fmt"

	"mtk/engine"
	"mtk/internal/chhttp"
	"mtk/internal/config"
	"mtk/internal/db"
)

// HTTPReader is the engine's reader over ClickHouse's HTTP interface, on the native URL's
// database with its credentials; nil when the engine reads over the native protocol
// (config.ClickHouseReadURL).
func HTTPReader(cfg config.Config) (*engine.HTTPReader, error) {
	u := cfg.ClickHouseReadURL()
	if u == "" {
		return nil, nil
	}
	opts, err := db.ClickHouseOptions(cfg.ClickHouseURL)
	if err != nil {
		return nil, fmt.Errorf("wire: %w", err)
	}
	r, err := chhttp.New(chhttp.Options{URL: u, Database: opts.Auth.Database, User: opts.Auth.Username, Password: opts.Auth.Password})
	if err != nil {
		return nil, fmt.Errorf("wire: MTK_CLICKHOUSE_HTTP_URL: %w", err)
	}
	return r, nil
}
