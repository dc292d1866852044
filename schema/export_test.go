package schema

import (
	"context"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// MigratePostgresTo and MigrateClickHouseTo apply the migrations up to version upTo: the
// upgrade tests make the database an older release left.
func MigratePostgresTo(ctx context.Context, pool *pgxpool.Pool, upTo int) ([]string, error) {
	return migratePostgres(ctx, pool, upTo)
}

func MigrateClickHouseTo(ctx context.Context, conn driver.Conn, upTo int) ([]string, error) {
	return migrateClickHouse(ctx, conn, nil, upTo)
}
