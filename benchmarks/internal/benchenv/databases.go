package benchenv

import (
	"context"
	"net/url"

	"github.com/jackc/pgx/v5"

	"mtk/internal/config"
	"mtk/internal/db"
)

// FreshDatabases drops and creates the databases called name on the servers of env and returns
// their URLs.
func FreshDatabases(ctx context.Context, env config.Config, name string) (pgURL, chURL string, err error) {
	admin, err := pgx.Connect(ctx, WithDatabase(env.PostgresURL, "postgres"))
	if err != nil {
		return "", "", err
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
		return "", "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", "", err
	}
	chURL = WithDatabase(env.ClickHouseURL, name)
	ch, err := db.OpenClickHouse(ctx, chURL)
	if err != nil {
		return "", "", err
	}
	if err := ch.Exec(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
		return "", "", err
	}
	ch.Close()
	return WithDatabase(env.PostgresURL, name), chURL, nil
}

// WithDatabase returns a store URL with its path (the database name) replaced.
func WithDatabase(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	u.Path = "/" + name
	return u.String()
}
