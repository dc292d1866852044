package adsync

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/pglock"
)

// Store is sync's PostgreSQL side: per-connection locks, ad objects and the bucket snapshot
// (schema/postgres/0003_sync.sql). The runs and the connections' outcomes are platform's
// (platform.Connections).
type Store struct{ pool *pgxpool.Pool }

// NewStore returns a Store over pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// tryLock takes the session advisory lock of a connection on a connection of its own, so that
// one mtk instance at a time syncs it. ok is false when another session holds it.
func (s *Store) tryLock(ctx context.Context, connectionID string) (release func(), ok bool, err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, false, err
	}
	key := pglock.Sync(connectionID)
	if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock("+pglock.KeyedID+")", key).Scan(&ok); err != nil || !ok {
		c.Release()
		return nil, false, err
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
		defer cancel()
		if _, err := c.Exec(ctx, "SELECT pg_advisory_unlock("+pglock.KeyedID+")", key); err != nil {
			c.Conn().Close(ctx) //nolint:errcheck // closing the session drops its locks
		}
		c.Release()
	}, true, nil
}

// recordTimeout bounds what a sync does after its work, whether or not the work's context
// ended: recording the run's outcome, releasing its lock.
const recordTimeout = 10 * time.Second

const objectColumns = "id, level, parent_id, campaign_id, name, status, budget_kind, budget_micros, budget_ref"

func scanObject(row pgx.CollectableRow) (Object, error) {
	var o Object
	err := row.Scan(&o.ID, &o.Level, &o.ParentID, &o.CampaignID, &o.Name, &o.Status, &o.BudgetKind, &o.BudgetMicros, &o.BudgetRef)
	return o, err
}

// Objects returns a connection's stored objects by id.
func (s *Store) Objects(ctx context.Context, connectionID string) (map[string]Object, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+objectColumns+" FROM ad_objects WHERE connection_id = $1", connectionID)
	if err != nil {
		return nil, err
	}
	list, err := pgx.CollectRows(rows, scanObject)
	if err != nil {
		return nil, err
	}
	out := make(map[string]Object, len(list))
	for _, o := range list {
		out[o.ID] = o
	}
	return out, nil
}

// SaveObjects upserts objects of a connection as a sync does (for seeds, tests and benchmarks
// that stand in for a network).
func (s *Store) SaveObjects(ctx context.Context, connectionID string, objs []Object, at time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return saveObjects(ctx, tx, connectionID, objs, at) })
}

// saveObjects upserts objects of a connection.
func saveObjects(ctx context.Context, tx pgx.Tx, connectionID string, objs []Object, at time.Time) error {
	b := &pgx.Batch{}
	for _, o := range objs {
		b.Queue(`INSERT INTO ad_objects (connection_id, `+objectColumns+`, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
			ON CONFLICT (connection_id, id) DO UPDATE SET level = $3, parent_id = $4, campaign_id = $5, name = $6, status = $7,
			budget_kind = $8, budget_micros = $9, budget_ref = $10, updated_at = $11`,
			connectionID, o.ID, o.Level, o.ParentID, o.CampaignID, o.Name, o.Status, o.BudgetKind, o.BudgetMicros, o.BudgetRef, at)
	}
	return tx.SendBatch(ctx, b).Close()
}
