package leads

// GenericPlans is the statement a transaction that applies Plans runs first (its settings last
// until the transaction ends). Each statement then reuses one generic plan per connection (planned
// at each run, the lead load cost as much planning as running), and that plan can only look leads
// up by index, whatever size the table had when it was made (a plan costed on an empty table
// seq-scanned it for ever; TestGenericPlansUseIndexes). JIT is off, since a disabled scan's cost
// would make PostgreSQL compile tiny reads.
const GenericPlans = `SELECT set_config('plan_cache_mode', 'force_generic_plan', true),
	set_config('enable_seqscan', 'off', true), set_config('enable_hashjoin', 'off', true),
	set_config('enable_mergejoin', 'off', true), set_config('jit', 'off', true)`
