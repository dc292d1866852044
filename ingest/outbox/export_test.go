package outbox

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The hooks below let the external tests (package outbox_test), which drain the real streams of
// the stream packages, stop a Drainer between its steps as a crash would.

// SetCrash sets d's crash hook (see Drainer.crash).
func SetCrash(d *Drainer, f func(step string, keys []RowKey) error) { d.crash = f }

// SetBatchSize sets how many rows one batch of d takes.
func SetBatchSize(d *Drainer, n int) { d.size = n }

// LoadBatch loads d's next batch of its only partition, as its run would.
func LoadBatch(ctx context.Context, d *Drainer, conn *pgxpool.Conn) (Rows, error) {
	return d.stream.Load(ctx, conn, d.size, Partition{Count: 1})
}

// Suspects are suspects for the external tests.
type Suspects struct{ s suspects }

// Add adds a row whose ClickHouse rows lie in [from, to].
func (s *Suspects) Add(id uint64, project string, from, to time.Time) { s.s.add(id, project, from, to) }

// Lookup adds to present which suspects table holds.
func (s *Suspects) Lookup(ctx context.Context, ch driver.Conn, table string, present map[uint64]bool) error {
	return s.s.lookup(ctx, ch, table, present)
}

// RecordTry records, as a run does before it sends anything, an attempt listing ids whose
// inserts are named by prefix.
func RecordTry(ctx context.Context, d *Drainer, conn *pgxpool.Conn, ids []int64, prefix string) error {
	_, err := d.recordTry(ctx, conn, ids, nil, prefix)
	return err
}

// ClickHouse is the connection d inserts through.
func ClickHouse(d *Drainer) driver.Conn { return d.ch }

// PartitionOf is partitionOf.
var PartitionOf = partitionOf
