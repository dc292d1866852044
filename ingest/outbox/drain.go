package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/clock"
)

// DrainBatch is how many rows one ClickHouse insert takes.
const DrainBatch = 5000

// Drainer moves one outbox table's rows into ClickHouse exactly once (see the package comment):
// NewDrainer the fact outbox into facts_raw, NewEventDrainer the event outbox into events.
type Drainer struct {
	pool  *pgxpool.Pool
	ch    driver.Conn
	clock clock.Clock
	log   *slog.Logger
	table drainTable
	// crash, in tests, is called between the steps of a batch ("insert": before the ClickHouse
	// insert, "mark": between it and the mark); an error stops the batch there, as a crash would.
	crash func(step string) error
}

// drainTable is what a Drainer needs of one outbox table.
type drainTable struct {
	name   string // the PostgreSQL table
	target string // the ClickHouse table its rows go to (facts_raw or events)
	lock   int64  // the advisory lock that lets one Drainer of the table run at a time
	// load reads at most limit pending rows in id order.
	load func(ctx context.Context, conn *pgxpool.Conn, limit int) (drainRows, error)
	// keep: applied rows stay, marked with applied_at, until purged; otherwise they are deleted.
	keep bool
}

// drainRows is one batch of loaded rows.
type drainRows interface {
	// keys are what the Drainer needs of each row, in order.
	keys() []rowKey
	// insert writes the rows that are not in skip.
	insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error
}

// rowKey is an outbox row's id, whether an earlier run attempted it, and where ClickHouse would
// hold it (its project and time).
type rowKey struct {
	id        int64
	attempted bool
	project   string
	ts        time.Time
}

func newDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger, t drainTable) *Drainer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Drainer{pool: pool, ch: ch, clock: clk, log: log, table: t, crash: func(string) error { return nil }}
}

// RunOnce drains every pending row and returns how many it applied. It returns at once when
// another Drainer of the same table holds the lock.
func (d *Drainer) RunOnce(ctx context.Context) (int, error) {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", d.table.lock).Scan(&got); err != nil || !got {
		return 0, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", d.table.lock) //nolint:errcheck
	total := 0
	for {
		n, err := d.batch(ctx, conn)
		total += n
		if err != nil || n < DrainBatch {
			return total, err
		}
	}
}

// batch applies the oldest pending rows, at most DrainBatch: it commits attempted_at on them,
// inserts those ClickHouse does not hold yet, and marks them done.
func (d *Drainer) batch(ctx context.Context, conn *pgxpool.Conn) (int, error) {
	rows, err := d.table.load(ctx, conn, DrainBatch)
	if err != nil {
		return 0, fmt.Errorf("outbox: load %s: %w", d.table.name, err)
	}
	keys := rows.keys()
	if len(keys) == 0 {
		return 0, nil
	}
	ids := make([]int64, len(keys))
	var attempted suspects
	for i, k := range keys {
		ids[i] = k.id
		if k.attempted {
			attempted.add(uint64(k.id), k.project, k.ts)
		}
	}
	if _, err := conn.Exec(ctx, "UPDATE "+d.table.name+" SET attempted_at = $2 WHERE id = ANY($1) AND attempted_at IS NULL",
		ids, d.clock.Now()); err != nil {
		return 0, err
	}
	present, err := attempted.lookup(ctx, d.ch, d.table.target)
	if err != nil {
		return 0, err
	}
	if err := d.crash("insert"); err != nil {
		return 0, err
	}
	if err := rows.insert(ctx, d.ch, present); err != nil {
		return 0, err
	}
	if err := d.crash("mark"); err != nil {
		return 0, err
	}
	mark, args := "DELETE FROM "+d.table.name+" WHERE id = ANY($1)", []any{ids}
	if d.table.keep {
		mark, args = "UPDATE "+d.table.name+" SET applied_at = $2 WHERE id = ANY($1)", append(args, d.clock.Now())
	}
	if _, err := conn.Exec(ctx, mark, args...); err != nil {
		return 0, err
	}
	if len(present) > 0 {
		d.log.Info("outbox: rows found already inserted by an interrupted run", "table", d.table.name, "rows", len(present))
	}
	return len(ids), nil
}
