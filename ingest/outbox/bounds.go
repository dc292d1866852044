package outbox

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultMaxRows is each outbox's default bound (MTK_EVENT_OUTBOX_MAX, MTK_FACT_OUTBOX_MAX,
// MTK_JOURNEY_OUTBOX_MAX): a million rows is about 1.5 GB of event_outbox, hours of a busy shop's events waiting for
// ClickHouse.
const DefaultMaxRows = 1_000_000

// Bounds are the most rows event_outbox, fact_outbox and journey_outbox may hold. A write that
// would pass a bound is refused whole (the caller answers 503 with Retry-After); the drainers make
// room as ClickHouse takes rows.
type Bounds struct {
	Events, Facts, Journeys int64
}

// WithDefaults sets DefaultMaxRows for a bound that is not positive.
func (b Bounds) WithDefaults() Bounds {
	if b.Events <= 0 {
		b.Events = DefaultMaxRows
	}
	if b.Facts <= 0 {
		b.Facts = DefaultMaxRows
	}
	if b.Journeys <= 0 {
		b.Journeys = DefaultMaxRows
	}
	return b
}

// Sizes are the outboxes' rows as committed when a writer's transaction read them (QueueSizes).
// A write decides on them inside its own transaction: it sees every write committed before it,
// so sequential writes stop exactly at the bound; writes committing at the same moment do not
// see each other, so the outbox may pass its bound by at most those (one flush batch per events
// flusher, one order's two rows per concurrent webhook).
type Sizes struct {
	Events, Facts, Journeys int64
}

// Fits reports whether events more event rows, facts more fact rows and journeys more journey
// rows stay within b.
func (b Bounds) Fits(s Sizes, events, facts, journeys int) bool {
	return s.Events+int64(events) <= b.Events && s.Facts+int64(facts) <= b.Facts &&
		s.Journeys+int64(journeys) <= b.Journeys
}

const sizesSQL = `SELECT coalesce(sum(n) FILTER (WHERE outbox = 'event_outbox'), 0),
	coalesce(sum(n) FILTER (WHERE outbox = 'fact_outbox'), 0),
	coalesce(sum(n) FILTER (WHERE outbox = 'journey_outbox'), 0) FROM outbox_sizes`

// QueueSizes queues the read of the outboxes' sizes; ReadSizes reads its answer.
func QueueSizes(b *pgx.Batch) { b.Queue(sizesSQL) }

// ReadSizes reads the answer of QueueSizes.
func ReadSizes(br pgx.BatchResults) (Sizes, error) {
	var s Sizes
	if err := br.QueryRow().Scan(&s.Events, &s.Facts, &s.Journeys); err != nil {
		return Sizes{}, fmt.Errorf("outbox: read sizes: %w", err)
	}
	return s, nil
}

// ReadSizesTx reads the outboxes' sizes in tx.
func ReadSizesTx(ctx context.Context, tx pgx.Tx) (Sizes, error) {
	b := &pgx.Batch{}
	QueueSizes(b)
	br := tx.SendBatch(ctx, b)
	s, err := ReadSizes(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return s, err
}

// QueueResize queues adding delta to table's size, on the row of the transaction's backend: a
// stream's queue function calls it with the rows it queues, in the writer's transaction.
func QueueResize(b *pgx.Batch, table string, delta int) {
	b.Queue(`INSERT INTO outbox_sizes AS s (outbox, backend, n) VALUES ($1, pg_backend_pid(), $2)
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, table, delta)
}

// Recount sets the outboxes' sizes to their counted rows, folded into one row each: it corrects
// any drift (rows deleted by hand) and drops the rows of ended backends. It holds writers' size
// updates (not their reads) while it counts: a write whose rows it could not see, being
// uncommitted, adds its size after it.
func Recount(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		b.Queue("LOCK TABLE outbox_sizes IN EXCLUSIVE MODE")
		b.Queue("DELETE FROM outbox_sizes")
		b.Queue(`INSERT INTO outbox_sizes (outbox, backend, n)
			SELECT 'event_outbox', 0, count(*) FROM event_outbox
			UNION ALL SELECT 'fact_outbox', 0, count(*) FROM fact_outbox
			UNION ALL SELECT 'journey_outbox', 0, count(*) FROM journey_outbox`)
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return fmt.Errorf("outbox: recount: %w", err)
		}
		return nil
	})
}
