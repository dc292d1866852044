package outbox

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/internal/chfence"
	"mtk/internal/clock"
)

// DrainBatch is how many rows one ClickHouse insert takes: large, so that ClickHouse has fewer
// parts to merge (benchmarks/README.md).
const DrainBatch = 20000

// Drainer moves one outbox stream's rows into ClickHouse exactly once (see the package comment).
// It knows nothing of the rows it moves: their stream (Stream) loads and inserts them.
type Drainer struct {
	// Partitions is how many partitions the outbox is drained in (MTK_DRAIN_PARTITIONS; 0 is 1):
	// Drainers in several processes then drain different partitions at once. A Drainer of one
	// partition excludes every other, but Drainers of different counts above 1 would drain a
	// project at once: they must not run together.
	Partitions int
	// Cluster is the ClickHouse cluster that ch belongs to (MTK_CLICKHOUSE_CLUSTER), "" for one
	// server: the servers where the inserts of an interrupted attempt may still run (fence).
	Cluster string

	pool   *pgxpool.Pool
	ch     driver.Conn
	clock  clock.Clock
	log    *slog.Logger
	stream Stream
	// size is how many rows one batch takes: the stream's batch, smaller in tests.
	size int
	// crash, in tests, is called with the batch's keys between its steps ("insert": before the
	// ClickHouse insert, "mark": between it and settle); an error stops the batch there, as a
	// crash would.
	crash func(step string, keys []RowKey) error
}

// Stream is what a Drainer needs of one outbox: a PostgreSQL table of rows with a bigint id and a
// project_id, each landing in ClickHouse rows that hold the id in outbox_id. Each stream's
// package declares its own (its payload, codec and loader stay there).
type Stream struct {
	// Table is the PostgreSQL outbox table.
	Table string
	// Targets are the ClickHouse tables its rows go to (events; facts_raw and business_raw), each
	// row to one of them: the tables looked up for what an interrupted attempt stored.
	Targets []string
	// Lock is the table's advisory lock (pglock.FactDrainer, ...).
	Lock int64
	// Batch is how many rows one batch takes; 0 is DrainBatch.
	Batch int
	// Load reads at most limit rows of the partition in id order (Partition.Select).
	Load func(ctx context.Context, conn *pgxpool.Conn, limit int, part Partition) (Rows, error)
}

// Rows is one batch of loaded rows.
type Rows interface {
	// Keys are what the Drainer needs of each row, in order.
	Keys() []RowKey
	// Insert writes the rows that are not in skip, naming its statements through ch (the fence).
	Insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error
	// Changes are the data versions that landing the rows moves (facts.Versions): all of them,
	// since rows an interrupted run inserted may not have moved theirs.
	Changes() ([]facts.Change, error)
}

// Settler is Rows that write more in the settle transaction: what must change exactly when the
// rows leave the outbox (the journey rows' dirty marks for the credit worker).
type Settler interface {
	Settled(b *pgx.Batch)
}

// RowKey is an outbox row's id and where ClickHouse would hold it (its project and time; From
// when its ClickHouse rows span [From, TS], zero when they are all at TS).
type RowKey struct {
	ID       int64
	Project  string
	TS, From time.Time
}

// NewDrainer returns the Drainer of stream s.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger, s Stream) *Drainer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	size := DrainBatch
	if s.Batch > 0 {
		size = s.Batch
	}
	return &Drainer{pool: pool, ch: ch, clock: clk, log: log, stream: s, size: size,
		crash: func(string, []RowKey) error { return nil }}
}

// RunOnce drains every pending row of every partition no other Drainer holds, one partition
// after the other, and returns how many rows it applied. Taking a partition's lock and each batch
// are given BatchTimeout; a partition that fails does not stop the others.
func (d *Drainer) RunOnce(ctx context.Context) (int, error) {
	return RunPartitions(ctx, d.pool, d.stream.Table, d.stream.Lock, d.Partitions,
		func(ctx context.Context, conn *pgxpool.Conn, count, index int) (int, error) {
			total := 0
			for {
				bctx, cancel := context.WithTimeout(ctx, BatchTimeout)
				n, err := d.batch(bctx, conn, Partition{Index: index, Count: count})
				cancel()
				total += n
				if err != nil || n < d.size {
					return total, err
				}
			}
		})
}

// batch applies the partition's oldest rows, at most d.size: it commits an attempt listing them (see
// the package comment), inserts those ClickHouse does not hold yet, then deletes the rows with
// their attempt in one transaction.
func (d *Drainer) batch(ctx context.Context, conn *pgxpool.Conn, part Partition) (int, error) {
	rows, err := d.stream.Load(ctx, conn, d.size, part)
	if err != nil {
		return 0, fmt.Errorf("outbox: load %s: %w", d.stream.Table, err)
	}
	keys := rows.Keys()
	if len(keys) == 0 {
		return 0, nil
	}
	ids := make([]int64, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	prior, err := d.priorAttempts(ctx, conn, ids)
	if err != nil {
		return 0, err
	}
	// What interrupted tries stored is known once their statements have ended.
	if len(prior.attempts) > 0 {
		if err := (chfence.Fence{CH: d.ch, Cluster: d.Cluster}).End(ctx, prior.queries); err != nil {
			return 0, err
		}
	}
	var fresh []int64 // ids no attempt lists yet
	var attempted suspects
	for _, k := range keys {
		if prior.ids[k.ID] {
			attempted.add(uint64(k.ID), k.Project, cmp.Or(k.From, k.TS), k.TS)
		} else {
			fresh = append(fresh, k.ID)
		}
	}
	try := chfence.NewPrefix("drain")
	attempt, err := d.recordTry(ctx, conn, fresh, prior.attempts, try)
	if err != nil {
		return 0, err
	}
	present := map[uint64]bool{}
	for _, target := range d.stream.Targets {
		if err := attempted.lookup(ctx, d.ch, target, present); err != nil {
			return 0, err
		}
	}
	if err := d.crash("insert", keys); err != nil {
		return 0, err
	}
	if err := rows.Insert(ctx, chfence.Named(d.ch, try), present); err != nil {
		return 0, err
	}
	if err := d.crash("mark", keys); err != nil {
		return 0, err
	}
	changes, err := rows.Changes()
	if err != nil {
		return 0, err
	}
	if err := d.settle(ctx, conn, rows, ids, attempt, prior.any, changes); err != nil {
		return 0, err
	}
	if len(present) > 0 {
		d.log.Info("outbox: rows found already inserted by an interrupted run", "table", d.stream.Table, "rows", len(present))
	}
	return len(ids), nil
}

// priorAttempts are the attempts of interrupted runs: their rows may already be in ClickHouse.
// There are none unless a run stopped between its attempt and its settle.
type priorAttempts struct {
	// any says whether the outbox has attempts at all (its settle then deletes the spent ones).
	any bool
	// attempts are those listing rows of the batch, ids the rows they list, and queries the
	// query id prefixes of their last tries.
	attempts []int64
	ids      map[int64]bool
	queries  []string
}

// priorAttempts reads the outbox's attempts (few: one per batch in flight or interrupted) and
// keeps those listing any row of batch.
func (d *Drainer) priorAttempts(ctx context.Context, conn *pgxpool.Conn, batch []int64) (priorAttempts, error) {
	p := priorAttempts{ids: map[int64]bool{}}
	rows, err := conn.Query(ctx, "SELECT id, ids, query_id FROM outbox_attempts WHERE outbox = $1", d.stream.Table)
	if err != nil {
		return p, fmt.Errorf("outbox: read attempts: %w", err)
	}
	defer rows.Close()
	var inBatch map[int64]bool
	for rows.Next() {
		var id int64
		var ids []int64
		var query string
		if err := rows.Scan(&id, &ids, &query); err != nil {
			return p, fmt.Errorf("outbox: read attempts: %w", err)
		}
		if inBatch == nil {
			inBatch = make(map[int64]bool, len(batch))
			for _, i := range batch {
				inBatch[i] = true
			}
		}
		p.any = true
		if !slices.ContainsFunc(ids, func(i int64) bool { return inBatch[i] }) {
			continue
		}
		p.attempts, p.queries = append(p.attempts, id), append(p.queries, query)
		for _, i := range ids {
			p.ids[i] = true
		}
	}
	if err := rows.Err(); err != nil {
		return p, fmt.Errorf("outbox: read attempts: %w", err)
	}
	return p, nil
}

// recordTry records, before the try sends anything, that its inserts are named by prefix: in a
// new attempt listing the rows no attempt lists yet (fresh), and on the prior attempts, whose
// own statements the fence has ended. It returns the new attempt (0: none).
//
// An attempt lists only rows no earlier one lists: while ClickHouse is down the same batch is
// tried every cycle, and its bookkeeping stays one row per batch, not one per try.
func (d *Drainer) recordTry(ctx context.Context, conn *pgxpool.Conn, fresh, prior []int64, prefix string) (int64, error) {
	if len(prior) > 0 {
		if _, err := conn.Exec(ctx, "UPDATE outbox_attempts SET query_id = $1 WHERE id = ANY($2)", prefix, prior); err != nil {
			return 0, fmt.Errorf("outbox: record attempt: %w", err)
		}
	}
	var attempt int64
	if len(fresh) > 0 {
		if err := conn.QueryRow(ctx, "INSERT INTO outbox_attempts (outbox, ids, created_at, query_id) VALUES ($1, $2, $3, $4) RETURNING id",
			d.stream.Table, fresh, d.clock.Now(), prefix).Scan(&attempt); err != nil {
			return 0, fmt.Errorf("outbox: record attempt: %w", err)
		}
	}
	return attempt, nil
}

// settle deletes the inserted rows, less their outbox's size by as many, their attempt (0:
// none), and (when there were prior attempts) every earlier attempt none of whose rows is left,
// and moves the data versions of what landed, in one transaction: a crash before it commits
// leaves the rows listed as suspects. Rows that are a Settler add their writes.
func (d *Drainer) settle(ctx context.Context, conn *pgxpool.Conn, rows Rows, ids []int64, attempt int64, prior bool,
	changes []facts.Change) error {
	b := &pgx.Batch{}
	b.Queue("BEGIN")
	// The size shrinks by the rows deleted, in the same transaction (see Bounds).
	b.Queue(`WITH d AS (DELETE FROM `+d.stream.Table+` WHERE id = ANY($1) RETURNING 1)
		INSERT INTO outbox_sizes AS s (outbox, backend, n) SELECT $2, pg_backend_pid(), -count(*) FROM d
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, ids, d.stream.Table)
	if attempt != 0 {
		b.Queue("DELETE FROM outbox_attempts WHERE id = $1", attempt)
	}
	if prior {
		b.Queue(`DELETE FROM outbox_attempts a WHERE a.outbox = $1
			AND NOT EXISTS (SELECT 1 FROM `+d.stream.Table+` t WHERE t.id = ANY(a.ids))`, d.stream.Table)
	}
	facts.QueueMoved(b, changes)
	if h, ok := rows.(Settler); ok {
		h.Settled(b)
	}
	b.Queue("COMMIT")
	if err := conn.SendBatch(ctx, b).Close(); err != nil {
		// A connection left inside the transaction is closed by the pool on release.
		return fmt.Errorf("outbox: settle %s: %w", d.stream.Table, err)
	}
	return nil
}
