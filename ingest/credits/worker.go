// Package credits keeps ClickHouse's credits_raw equal to facts.Credits of every order's current
// journey, exactly once (schema/postgres/0020_credits.sql, schema/clickhouse/0011_credits.sql).
//
// The journey stream's drainer (ingest/journeys) marks in credit_dirty (QueueMarks) the leads whose touches or orders it
// landed in journeys_by_lead. The Worker takes marks in batches, one PostgreSQL transaction each:
// it resolves each lead to its person (its root lead and every lead merged into it), reads the
// person's touches and orders from journeys_by_lead, builds each order's facts.OrderJourney,
// compares it with what order_credits says was credited, and for each order that changed queues
// a credit_outbox row (the old journey to take back, the new one to credit) and updates
// order_credits, deleting the marks taken. The credit outbox's stream (Stream, through the generic
// outbox.Drainer) then writes the credits exactly once. A crash before the commit changes nothing: the marks stay and the next run
// computes the same.
package credits

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/pglock"
	"mtk/platform"
)

// Batch is how many marks one batch takes: a few hundred people's journeys, read in one
// ClickHouse query per project.
const Batch = 500

// Stats is what one batch did, for metrics.
type Stats struct {
	Marks, People, Orders int // marks taken, people read, orders credited again
	RowsRead              int // journeys_by_lead rows (grouped) read
	Took                  time.Duration
}

// Worker credits orders again for the marks of credit_dirty (see the package comment).
type Worker struct {
	// Partitions is how many partitions (by project) the marks are taken in, as the outboxes'
	// (MTK_DRAIN_PARTITIONS).
	Partitions int
	// Observe, when set, is told about every batch.
	Observe func(Stats)
	// Reattribute, when set, is given the people of each project's marks (each lead mapped to
	// its person's root), in the batch's transaction, before their credits: a touch or a merge
	// that moves an order's reported attribution (ingest/orders.Service.Reattribute) lands with
	// the credits it moves.
	Reattribute func(ctx context.Context, tx pgx.Tx, p platform.Project, people map[string]string) error

	pool  *pgxpool.Pool
	ch    driver.Conn
	clock clock.Clock
	log   *slog.Logger
	size  int
	// copied is set once journeys_by_lead holds the journeys stored before it (CopyJourneys).
	copied bool
	// computed, in tests, is called once a batch has computed its changes, before it writes them;
	// an error stops the batch there, as a crash would.
	computed func() error
}

// New returns a Worker.
func New(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{pool: pool, ch: ch, clock: clk, log: log, size: Batch, computed: func() error { return nil }}
}

// RunOnce takes every mark of every partition no other Worker holds, batch after batch, and
// returns how many orders it credited again. Until the journeys stored before journeys_by_lead
// are copied into it, it copies them first: a person read without them would lose credits.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	if !w.copied {
		if err := CopyJourneys(ctx, w.pool, w.ch, w.clock.Now()); err != nil {
			return 0, err
		}
		w.copied = true
	}
	return outbox.RunPartitions(ctx, w.pool, "credit_dirty", pglock.CreditWorker, w.Partitions,
		func(ctx context.Context, conn *pgxpool.Conn, count, index int) (int, error) {
			total := 0
			for {
				bctx, cancel := context.WithTimeout(ctx, outbox.BatchTimeout)
				st, err := w.batch(bctx, conn, count, index)
				cancel()
				total += st.Orders
				if err != nil || st.Marks < w.size {
					return total, err
				}
			}
		})
}

// mark is one row of credit_dirty.
type mark struct {
	Mark
	seq int64
}

// batch credits again the orders of the partition's oldest marks, at most w.size.
func (w *Worker) batch(ctx context.Context, conn *pgxpool.Conn, count, index int) (Stats, error) {
	start := time.Now()
	var st Stats
	tx, err := conn.Begin(ctx)
	if err != nil {
		return st, err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // a committed transaction makes it a no-op
	rows, err := tx.Query(ctx, `SELECT project_id, lead_id, order_id, order_ts, seq FROM credit_dirty
		WHERE `+outbox.PartitionWhere("$2", "$3")+` ORDER BY seq LIMIT $1`, w.size, count, index)
	if err != nil {
		return st, fmt.Errorf("credits: read marks: %w", err)
	}
	marks, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (mark, error) {
		var m mark
		return m, r.Scan(&m.Project, &m.Lead, &m.Order, &m.OrderTime, &m.seq)
	})
	if err != nil || len(marks) == 0 {
		return st, err
	}
	st.Marks = len(marks)
	byProject := map[string][]Mark{}
	seqs := make([]int64, len(marks))
	for i, m := range marks {
		byProject[m.Project] = append(byProject[m.Project], m.Mark)
		seqs[i] = m.seq
	}
	b := &pgx.Batch{}
	var changes []Change
	for _, project := range slices.Sorted(maps.Keys(byProject)) {
		p, err := w.project(ctx, tx, project, byProject[project])
		if err != nil {
			return st, fmt.Errorf("credits: project %s: %w", project, err)
		}
		st.People += p.people
		st.RowsRead += p.rowsRead
		changes = append(changes, p.changes...)
		if err := p.queueState(b); err != nil {
			return st, err
		}
	}
	if err := QueueChanges(b, changes, w.clock.Now()); err != nil {
		return st, err
	}
	if err := w.computed(); err != nil {
		return st, err
	}
	// The marks are locked in key order, as the journey drainer sets them, so that the two never
	// deadlock; a mark set again since it was read has another seq and stays.
	b.Queue(`DELETE FROM credit_dirty WHERE ctid IN (SELECT ctid FROM credit_dirty WHERE seq = ANY($1)
		ORDER BY project_id, lead_id, order_id, order_ts FOR UPDATE)`, seqs)
	if err := tx.SendBatch(ctx, b).Close(); err != nil {
		return st, fmt.Errorf("credits: write: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return st, fmt.Errorf("credits: commit: %w", err)
	}
	st.Orders = len(changes)
	st.Took = time.Since(start)
	if w.Observe != nil {
		w.Observe(st)
	}
	return st, nil
}
