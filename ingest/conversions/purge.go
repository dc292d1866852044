package conversions

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// How long settled conversions are kept, from when they were queued. A sent one is kept as long
// as its event's id identifies the event (events.EventIDWindow; an order's Purchase is queued
// once whatever its outbox holds): a repeat within that time is stopped before it is queued, and
// one later is a new event, which the conversions API refuses once older than MaxAge anyway. A
// dead one is kept a month for an operator (`mtk outbox list --status dead`, `retry`).
const (
	SentRetention = 7 * 24 * time.Hour
	DeadRetention = 30 * 24 * time.Hour
)

// purgeChunk is how many rows one DELETE takes, so that a large backlog is purged in short
// transactions.
const purgeChunk = 10_000

// Purge deletes the sent conversions queued SentRetention before now or earlier and
// the dead ones queued DeadRetention before, and returns how many of each; a scheduled job calls
// it. The statuses are written into the statements, and the oldest go first, so that every
// plan reads the partial index of settled conversions rather than the table.
func Purge(ctx context.Context, pool *pgxpool.Pool, now time.Time) (sent, dead int64, err error) {
	if sent, err = purgeChunks(ctx, pool, `DELETE FROM conversion_outbox WHERE id = ANY(ARRAY(SELECT id FROM conversion_outbox
		WHERE status = 'sent' AND created_at < $1 ORDER BY created_at LIMIT $2))`, now.Add(-SentRetention)); err != nil {
		return sent, 0, fmt.Errorf("conversions: purge sent conversions: %w", err)
	}
	if dead, err = purgeChunks(ctx, pool, `DELETE FROM conversion_outbox WHERE id = ANY(ARRAY(SELECT id FROM conversion_outbox
		WHERE status = 'dead' AND created_at < $1 ORDER BY created_at LIMIT $2))`, now.Add(-DeadRetention)); err != nil {
		return sent, dead, fmt.Errorf("conversions: purge dead conversions: %w", err)
	}
	return sent, dead, nil
}

// purgeChunks runs a chunked DELETE until it deletes fewer than a chunk.
func purgeChunks(ctx context.Context, pool *pgxpool.Pool, stmt string, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := pool.Exec(ctx, stmt, before, purgeChunk)
		if err != nil {
			return total, err
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < purgeChunk {
			return total, nil
		}
	}
}
