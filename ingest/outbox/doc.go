// Package outbox carries ingestion out of PostgreSQL into ClickHouse, exactly once, through
// transactional outboxes written in the same transaction as the change that causes them. It is
// the transport only: a Drainer moves the rows of one Stream and knows nothing of their payload.
// Each stream declares itself in its own package, with its payload type, its queue functions
// (written in the writer's transaction, growing the outbox's size with QueueResize) and its
// loader:
//
//   - ingest/events: event_outbox → the events table (each event carries its outbox id in
//     events.outbox_id);
//   - ingest/factstream: fact_outbox → facts_raw (an attributed event's business fact, an
//     order's signed contribution) and business_raw (every counting event and order with its
//     items), told apart by their kind;
//   - ingest/journeys: journey_outbox → journeys_by_lead (touches, order changes and lead
//     merges); its rows, as they leave the outbox, mark their leads in credit_dirty (a Settler)
//     for the credit worker;
//   - ingest/credits: credit_outbox → credits_raw (each order credited again: its old journey's
//     credits negated and its new one's).
//
// A Stream names its table, its ClickHouse targets, its advisory lock and its batch, and loads a
// batch of a partition (Partition.Select) as Rows: their keys, their insert and the data versions
// they move. Everything else below is the Drainer's, the same for every stream.
//
// # Exactly once
//
// Before a Drainer sends a batch it commits an attempt (a row of outbox_attempts listing the
// batch's ids); after the insert it deletes the rows and their attempt in one transaction. An
// outbox row listed by an attempt may have reached ClickHouse before a crash (between the
// insert and the delete), so the Drainer first looks up which of those ids the target table
// already holds and inserts only the others. A retried batch therefore never counts twice, and
// a crash at any point loses nothing: rows stay until deleted. An attempt lists only rows no
// earlier attempt lists, so a ClickHouse outage of hours, with the same batch tried every
// cycle, keeps one attempt per batch, not one per try. An attempt row per batch, rather than a
// mark on every outbox row, keeps the drain's PostgreSQL writes independent of the batch's size.
// One Drainer of a table, or of one partition of it (Drainer.Partitions: by project, so that a
// project's rows keep their order), runs at a time across processes (PostgreSQL advisory
// locks); the lookup relies on ClickHouse answering a read with what an ended insert wrote (one
// server, or a cluster written with insert_distributed_sync).
//
// The look-up is only right once the interrupted run's inserts have ended: ClickHouse goes on
// with an INSERT whose client died (a worker killed, or a batch timed out) and, busy, may store
// it seconds later, after another Drainer found nothing and inserted the rows again. So each try
// of a batch names its inserts (query ids prefix.1, prefix.2, ...), and records the prefix with
// its attempts (outbox_attempts.query_id) before it sends anything; the next try of those rows
// first kills the statements so named and waits until no server lists them in system.processes
// (internal/chfence: on a cluster, KILL ... ON CLUSTER and every server's processes), then looks up, then
// records its own prefix on the attempts. 18.16 refuses to kill an INSERT, which then ends when
// written; current ClickHouse cancels it. A try never waits on a live worker's insert: attempts
// are read under the partition's lock, and only those listing the batch's rows are fenced.
//
// # Conversions
//
// The conversion outbox (conversion_outbox → the first network's conversions API) is no stream
// of this package: it is not drained into ClickHouse but forwarded over HTTP, by
// ingest/conversions (the queue, its deliverer, retention and the operator's view).
package outbox
