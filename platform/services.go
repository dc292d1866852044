// Package platform keeps mtk's platform entities in PostgreSQL: workspaces and their tiers, users
// and memberships, API keys, projects, connections and sync runs, and the tracking configuration
// (containers with their domains, pixels and triggers; tracking links and their clicks). Each
// entity has one service that owns its tables (Workspaces, Users, Keys, Projects, Connections,
// Containers, Links, OAuth), New builds them all over one pool, and no other package writes
// these tables (internal/archtest). The services return *apperr.Error for anything a client may
// see (not found, bad credentials, invalid input).
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

// Services are the platform's services, one per entity. They share one pool, one clock and the
// caches of the hot read paths, so a change made through one shows at once in the others.
type Services struct {
	Workspaces  *Workspaces
	Users       *Users
	Keys        *Keys
	Projects    *Projects
	Connections *Connections
	Containers  *Containers
	Links       *Links
	OAuth       *OAuth

	pool *pgxpool.Pool
}

// New returns the services over pool. clk is the time source (clock.Real{} in production).
func New(pool *pgxpool.Pool, clk clock.Clock) *Services {
	d := db{pool: pool, clock: clk}
	workspaces := &Workspaces{db: d}
	keys := &Keys{db: d, verified: ttlcache.New[string, cachedKey](KeyCacheTTL, cacheMax)}
	projects := &Projects{db: d, scopes: ttlcache.New[string, ProjectScope](KeyCacheTTL, cacheMax)}
	connections := &Connections{db: d, projects: projects, workspaces: workspaces,
		webhooks: ttlcache.New[string, WebhookConnection](KeyCacheTTL, cacheMax)}
	return &Services{
		Workspaces: workspaces,
		Users: &Users{db: d, tokens: ttlcache.New[string, tokenState](KeyCacheTTL, cacheMax),
			members: ttlcache.New[[2]string, Membership](KeyCacheTTL, cacheMax)},
		Keys:        keys,
		Projects:    projects,
		Connections: connections,
		Containers:  &Containers{db: d, projects: projects},
		Links:       &Links{db: d},
		OAuth:       &OAuth{db: d, keys: keys},
		pool:        pool,
	}
}

// Pool returns the underlying pool, for components that share it.
func (s *Services) Pool() *pgxpool.Pool { return s.pool }

// db is what every service reads and writes through: the pool and the clock.
type db struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

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
func queryOne[T any](ctx context.Context, d db, scan pgx.RowToFunc[T], notFound error, sql string, args ...any) (T, error) {
	var zero T
	rows, err := d.pool.Query(ctx, sql, args...)
	if err != nil {
		return zero, err
	}
	v, err := pgx.CollectExactlyOneRow(rows, scan)
	if isNoRows(err) {
		return zero, notFound
	}
	return v, err
}
