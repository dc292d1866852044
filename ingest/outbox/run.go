package outbox

import "time"

// Interval is how often the fact drainer and the conversion deliverer look for work when idle:
// `mtk serve` runs each worker's step at this period in its runner (internal/runner,
// wire.System.StartWorkers), which recovers and logs a failed or panicking step.
const Interval = time.Second

// EventsInterval is how often the event drainer looks for events: about the most an event waits
// for ClickHouse beyond the insert. Every second, as for facts: inserts five times as large, and
// five times fewer parts for ClickHouse to merge, than every 200 ms.
const EventsInterval = time.Second

// BatchTimeout bounds one batch of a worker's step (a drain's load, insert and settle; a
// delivery's requests and their recording): a store that stops answering fails the batch, which
// the next step tries again (exactly once all the same), instead of holding the worker.
const BatchTimeout = 2 * time.Minute
