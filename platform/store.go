// Package platform keeps mtk's platform entities in PostgreSQL: workspaces and their tiers, users
// and memberships, API keys, projects, connections and sync runs, and the tracking configuration
// (containers with their domains, pixels and triggers; tracking links and their clicks). Handlers
// call it through Store; it returns *apperr.Error for anything a client may see (not found, bad
// credentials, invalid input).
package platform

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/clock"
	"mtk/internal/ttlcache"
)

// Store reads and writes platform entities.
type Store struct {
	pool   *pgxpool.Pool
	clock  clock.Clock
	keys   *ttlcache.Cache[string, cachedKey]
	scopes *ttlcache.Cache[string, ProjectScope]
	tokens *ttlcache.Cache[string, tokenState]
}

// NewStore returns a Store over pool. clk is the time source (clock.Real{} in production).
func NewStore(pool *pgxpool.Pool, clk clock.Clock) *Store {
	return &Store{pool: pool, clock: clk,
		keys:   ttlcache.New[string, cachedKey](KeyCacheTTL, cacheMax),
		scopes: ttlcache.New[string, ProjectScope](KeyCacheTTL, cacheMax),
		tokens: ttlcache.New[string, tokenState](KeyCacheTTL, cacheMax)}
}

// Pool returns the underlying pool, for components that share it.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

func isNoRows(err error) bool { return errors.Is(err, pgx.ErrNoRows) }

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool { return violated(err) != "" }

// violated names the unique constraint that err violates, or is empty.
func violated(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == "23505" {
		return pg.ConstraintName
	}
	return ""
}

// isForeignKeyViolation reports whether err is PostgreSQL's foreign_key_violation.
func isForeignKeyViolation(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23503"
}

// queryOne runs a query that answers at most one row and scans it; no row is notFound.
func queryOne[T any](ctx context.Context, s *Store, scan pgx.RowToFunc[T], notFound error, sql string, args ...any) (T, error) {
	var zero T
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return zero, err
	}
	v, err := pgx.CollectExactlyOneRow(rows, scan)
	if isNoRows(err) {
		return zero, notFound
	}
	return v, err
}
