package outbox

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/pglock"
)

// Partition is the part of an outbox that one drain takes: the rows whose project hashes to
// Index (from 0) among Count. A project's rows are all in one partition, drained in id order by
// one Drainer at a time, so that they reach ClickHouse in the order they were queued.
type Partition struct{ Index, Count int }

// Select reads, from the outbox table, columns (the first of them id) of at most limit rows of
// the partition, in id order: what a Stream's Load reads.
func (part Partition) Select(ctx context.Context, conn *pgxpool.Conn, table, columns string, limit int) (pgx.Rows, error) {
	return conn.Query(ctx, `SELECT `+columns+` FROM `+table+` WHERE `+PartitionWhere("$2", "$3")+` ORDER BY id LIMIT $1`,
		limit, part.Count, part.Index)
}

// partitionOf is the SQL of the partition of the project named by column among count (a bound
// parameter): its hash, shifted to be non-negative, modulo count. Every Drainer computes it in
// the one PostgreSQL server, so all agree on a project's partition.
func partitionOf(column, count string) string {
	return "(hashtext(" + column + ")::bigint + 2147483648) % " + count
}

// lock takes, without waiting, the advisory locks that let one Drainer drain part of table (see
// pglock.FactDrainer): the table's lock exclusively when the outbox is not split, else that lock
// shared and the partition's own. It reports whether it got them; release gives them back.
func (part Partition) lock(ctx context.Context, conn *pgxpool.Conn, table string, tableLock int64) (bool, error) {
	var got bool
	if part.Count == 1 {
		err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", tableLock).Scan(&got)
		return got, err
	}
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock_shared($1)", tableLock).Scan(&got); err != nil || !got {
		return false, err
	}
	err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock("+pglock.KeyedID+")",
		pglock.DrainPartition(table, part.Count, part.Index)).Scan(&got)
	if err != nil || !got {
		unlock(ctx, conn, "SELECT pg_advisory_unlock_shared($1)", tableLock)
		return false, err
	}
	return true, nil
}

// release gives back what lock took.
func (part Partition) release(ctx context.Context, conn *pgxpool.Conn, table string, tableLock int64) {
	if part.Count == 1 {
		unlock(ctx, conn, "SELECT pg_advisory_unlock($1)", tableLock)
		return
	}
	unlock(ctx, conn, "SELECT pg_advisory_unlock("+pglock.KeyedID+"), pg_advisory_unlock_shared($2)",
		pglock.DrainPartition(table, part.Count, part.Index), tableLock)
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

// PartitionWhere selects the rows of a partition of a table split by project like the outboxes
// (its project_id column), the count bound as countParam and the index as indexParam.
func PartitionWhere(countParam, indexParam string) string {
	return partitionOf("project_id", countParam) + " = " + indexParam
}

// RunPartitions calls step for each of count partitions (0 is 1) of table, by project, whose
// locks it takes without waiting, as a Drainer does (tableLock is the table's lock), so that two
// processes never work on one project at once. step gets the connection holding the locks and
// the partition (count, index) for PartitionWhere; a partition that fails does not stop the
// others. It returns what the steps returned, summed.
func RunPartitions(ctx context.Context, pool *pgxpool.Pool, table string, tableLock int64, count int,
	step func(ctx context.Context, conn *pgxpool.Conn, count, index int) (int, error)) (int, error) {
	count = max(count, 1)
	total := 0
	var errs []error
	for i := 0; i < count && ctx.Err() == nil; i++ {
		n, err := func() (int, error) {
			part := Partition{Index: i, Count: count}
			lctx, cancel := context.WithTimeout(ctx, BatchTimeout)
			defer cancel()
			conn, err := pool.Acquire(lctx)
			if err != nil {
				return 0, err
			}
			defer conn.Release()
			if got, err := part.lock(lctx, conn, table, tableLock); err != nil || !got {
				return 0, err
			}
			defer part.release(ctx, conn, table, tableLock)
			return step(ctx, conn, count, i)
		}()
		total += n
		if err != nil {
			errs = append(errs, err)
		}
	}
	return total, errors.Join(errs...)
}
