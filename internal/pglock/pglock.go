// Package pglock names every PostgreSQL advisory lock mtk takes, in one place, so that no two
// uses share a lock by accident. Fixed ids are for singletons; keyed locks hash a prefixed name
// with hashtextextended in SQL (Keyed's SQL fragment), so that their ids cannot meet the fixed
// ones except by a 64-bit hash collision.
package pglock

import "strconv"

// The fixed locks.
const (
	// Migrations serializes concurrent migrators (schema).
	Migrations int64 = 7_346_001
	// TestTemplate serializes the building of the tests' template database across test
	// processes (internal/testenv).
	TestTemplate int64 = 7_346_002
	// FactDrainer and EventDrainer let one drainer of each outbox run at a time (ingest/outbox):
	// held exclusively by a drainer of the whole outbox, shared by the drainers of its
	// partitions (each also holding its partition's DrainPartition lock), so that the two kinds
	// never drain at once.
	FactDrainer  int64 = 7_346_101
	EventDrainer int64 = 7_346_102
	// JourneyDrainer is FactDrainer's lock for the journey outbox.
	JourneyDrainer int64 = 7_346_103
	// CreditDrainer is FactDrainer's lock for the credit outbox.
	CreditDrainer int64 = 7_346_104
	// CreditWorker is FactDrainer's lock for the credit worker's marks (ingest/credits), which
	// it takes in partitions like an outbox.
	CreditWorker int64 = 7_346_105
	// PairBackfill lets one pair backfill run at a time (ingest/pairs).
	PairBackfill int64 = 7_346_106
)

// KeyedID is the SQL expression of a keyed lock's id, from its name bound as $1.
const KeyedID = "hashtextextended($1, 0)"

// Leads is the name of a project's lead lock, held by a transaction that resolves its leads
// (ingest/leads).
func Leads(project string) string { return "mtk.leads:" + project }

// Sync is the name of a connection's sync lock, held by the session that syncs it (adsync).
func Sync(connection string) string { return "sync:" + connection }

// DrainPartition is the name of the lock held by the drainer of one partition (index, from 0)
// of an outbox table split in count partitions (ingest/outbox).
func DrainPartition(table string, count, index int) string {
	return "drain:" + table + ":" + strconv.Itoa(count) + ":" + strconv.Itoa(index)
}
