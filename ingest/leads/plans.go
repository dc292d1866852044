package leads

// GenericPlans is the statement a transaction that applies Plans runs before them. It makes
// every statement of the transaction reuse one generic plan per connection instead of being
// planned at each run, and makes that plan look leads up through their indexes however few rows
// the table held when it was made.
//
// Both halves matter. Planned at each run (force_custom_plan), the load alone costs PostgreSQL
// half a millisecond a batch, as much as running it: the planner weighs every element of the
// identifier arrays. Left to choose (auto), PostgreSQL settles on a generic plan after five runs,
// costed with the table's sizes at that moment; one made while leads was nearly empty (a new
// installation, the ingest benchmark) seq-scans it at every later batch, 2,000 events/s instead
// of 6,000 in the benchmark. With sequential scans, hash and merge joins off, the only plans left
// are index lookups and nested loops over them, which is what a batch of a few dozen leads needs
// at any table size (TestGenericPlansUseIndexes).
//
// JIT compilation is off too: a plan that has to scan a table anyway (a small one, such as
// outbox_sizes) carries the huge cost of a disabled sequential scan, which would make PostgreSQL
// JIT-compile it at every run (measured: 130 ms of a 0.1 ms read, 4,700 events/s down to 640).
//
// The settings last until the transaction ends (set_config's is_local).
const GenericPlans = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true), set_config('jit', 'off', true)`
