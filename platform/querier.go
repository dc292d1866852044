package platform

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// Querier is where another package reads platform rows as part of its own work: its
// transaction (pgx.Tx), so that the read sees what that transaction sees, or a pool. The reads
// that take one are package functions beside the entity's service; the statements stay here.
type Querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}
