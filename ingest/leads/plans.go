package leads

import (
	"github.com/jackc/pgx/v5"

	"mtk/ingest/outbox"
)

// GenericPlans is the statement a transaction that applies Plans runs first (its settings last
// until the transaction ends). Each statement then reuses one generic plan per connection (planned
// at each run, the lead load cost as much planning as running), and that plan can only look leads
// up by index, whatever size the table had when it was made (a plan costed on an empty table
// seq-scanned it for ever; TestGenericPlansUseIndexes). JIT is off, since a disabled scan's cost
// would make PostgreSQL compile tiny reads.
const GenericPlans = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true), set_config('jit', 'off', true)`

// QueueBegin queues on b what a transaction writing leads reads first: BEGIN, GenericPlans, and
// the outboxes' sizes (outbox.QueueSizes), which bound what it may queue. ReadBegin reads them.
func QueueBegin(b *pgx.Batch) {
	b.Queue("BEGIN")
	b.Queue(GenericPlans)
	outbox.QueueSizes(b)
}

// ReadBegin reads the answers of QueueBegin from br: the outboxes' sizes.
func ReadBegin(br pgx.BatchResults) (outbox.Sizes, error) {
	for range 2 { // BEGIN, then GenericPlans
		if _, err := br.Exec(); err != nil {
			return outbox.Sizes{}, err
		}
	}
	return outbox.ReadSizes(br)
}
