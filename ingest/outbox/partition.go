package outbox

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/pglock"
)

// partition is the part of an outbox that one drain takes: the rows whose project hashes to
// index (from 0) among count. A project's rows are all in one partition, drained in id order by
// one Drainer at a time, so that they reach ClickHouse in the order they were queued.
type partition struct{ index, count int }

// partitionWhere selects a partition's rows, the count bound as $2 and the index as $3.
var partitionWhere = partitionOf("project_id", "$2") + " = $3"

// partitionOf is the SQL of the partition of the project named by column among count (a bound
// parameter): its hash, shifted to be non-negative, modulo count. Every Drainer computes it in
// the one PostgreSQL server, so all agree on a project's partition.
func partitionOf(column, count string) string {
	return "(hashtext(" + column + ")::bigint + 2147483648) % " + count
}

// lock takes, without waiting, the advisory locks that let one Drainer drain part of table (see
// pglock.FactDrainer): the table's lock exclusively when the outbox is not split, else that lock
// shared and the partition's own. It reports whether it got them; release gives them back.
func (part partition) lock(ctx context.Context, conn *pgxpool.Conn, table string, tableLock int64) (bool, error) {
	var got bool
	if part.count == 1 {
		err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", tableLock).Scan(&got)
		return got, err
	}
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock_shared($1)", tableLock).Scan(&got); err != nil || !got {
		return false, err
	}
	err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+pglock.KeyedID+")",
		pglock.DrainPartition(table, part.count, part.index)).Scan(&got)
	if err != nil || !got {
		unlock(ctx, conn, "SELECT pg_advisory_unlock_shared($1)", tableLock)
		return false, err
	}
	return true, nil
}

// release gives back what lock took.
func (part partition) release(ctx context.Context, conn *pgxpool.Conn, table string, tableLock int64) {
	if part.count == 1 {
		unlock(ctx, conn, "SELECT pg_advisory_unlock($1)", tableLock)
		return
	}
	unlock(ctx, conn, "SELECT pg_advisory_unlock("+pglock.KeyedID+"), pg_advisory_unlock_shared($2)",
		pglock.DrainPartition(table, part.count, part.index), tableLock)
}

// unlock releases a session's advisory locks (sql with args) before its connection goes back to
// the pool; when that fails it closes the connection, which releases them too, rather than
// leaving an idle connection holding them.
func unlock(ctx context.Context, conn *pgxpool.Conn, sql string, args ...any) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), unlockTimeout)
	defer cancel()
	if _, err := conn.Exec(ctx, sql, args...); err != nil {
		conn.Conn().Close(ctx) //nolint:errcheck // closing is what is left to do
	}
}

// unlockTimeout bounds releasing an advisory lock.
const unlockTimeout = 5 * time.Second
