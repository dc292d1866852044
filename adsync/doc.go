// Package adsync pulls ad accounts, their objects (campaigns, ad sets, ads) and their metrics from
// the ad networks into mtk's stores, and pushes status and budget changes back. The network
// clients implement Connector in the subpackages alpha, beta and gamma; Syncer runs one sync of a
// connection (entities to PostgreSQL and ClickHouse, metric differences to ClickHouse); Scheduler
// runs due connections on the workspace tier's interval; Objects applies PUT objects.
//
// # Facts land exactly once
//
// A run compares what the network reports with the snapshot of what ClickHouse holds
// (sync_buckets) and writes the differences as signed facts. ClickHouse's MergeTree never
// de-duplicates a repeated insert and nothing spans the two stores in one transaction, so the
// run's writes form a batch whose id is the run's id, in three steps:
//
//  1. Write-ahead: in the PostgreSQL transaction that stores the objects, the batch is stored
//     as pending (sync_batches, sync_batch_changes): each changed bucket's new state and
//     difference, and what places its facts (the run's clock, the account's and the project's
//     zones), so its fact rows can be rebuilt exactly.
//  2. Land: one INSERT per landing table (facts_raw, facts_hourly_in, facts_daily_in), every
//     row carrying the batch id, in tables that never collapse rows; views feed the rollups.
//  3. Apply: one PostgreSQL transaction stores the buckets' new states in the snapshot and marks
//     the batch applied.
//
// Every run first completes, under the connection's lock, the batch a failure left pending
// (Recover does only that): it asks ClickHouse which of the batch's rows each landing table
// holds (facts.MissingBatchFacts), inserts the others, then applies. Whatever step a failure
// or a crash stopped, the batch's facts are then in ClickHouse once and the snapshot matches
// them, and the run compares with that snapshot.
//
// The look-up is only right once the failed run's inserts have ended: ClickHouse goes on with an
// INSERT whose run died or gave up, and a busy server stores it seconds later. So each try of a
// batch names its inserts (internal/chfence) with a query id prefix recorded with the batch
// (sync_batches.query_id) before it sends anything, and the completing run first kills the
// statements so named and waits until no server lists them (on a cluster, every server), then
// records its own prefix, then looks up.
package adsync
