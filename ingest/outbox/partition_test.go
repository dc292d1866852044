package outbox_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/factstream"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/pglock"
	"mtk/internal/testenv"
)

// partitionFixture is an outbox of facts for 12 projects, interleaved over several transactions.
type partitionFixture struct {
	pg    testenv.PG
	ch    testenv.CH
	clk   *clock.Fake
	queue map[string]int64 // revenue queued per project
	rows  int
}

func newPartitionFixture(t *testing.T) *partitionFixture {
	t.Helper()
	f := &partitionFixture{pg: testenv.Postgres(t), ch: testenv.ClickHouse(t),
		clk: clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)), queue: map[string]int64{}}
	ctx := context.Background()
	for tx := range 5 {
		err := pgx.BeginFunc(ctx, f.pg.Pool, func(tx pgx.Tx) error {
			var rows []factstream.FactRow
			for i := range 12 * 6 {
				prj := fmt.Sprintf("prj_%d", i%12)
				rows = append(rows, factstream.FactRow{ProjectID: prj, TimeZone: "UTC", Time: f.clk.Now(), AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL",
					Values: facts.Values{facts.TxRevenue: int64(i + 1), facts.TxCount: 1, facts.TxCountTotal: 1}})
				f.queue[prj] += int64(i + 1)
			}
			w := &pgx.Batch{}
			factstream.QueueFacts(w, rows, f.clk.Now())
			f.rows += len(rows)
			return tx.SendBatch(ctx, w).Close()
		})
		if err != nil {
			t.Fatalf("transaction %d: %v", tx, err)
		}
	}
	return f
}

// landed is the revenue per project and the rows facts_raw holds.
func (f *partitionFixture) landed(t *testing.T) (map[string]int64, int) {
	t.Helper()
	rows, err := f.ch.Conn.Query(context.Background(), "SELECT project_id, toInt64(sum(tx_revenue)), count() FROM facts_raw GROUP BY project_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got, total := map[string]int64{}, 0
	for rows.Next() {
		var prj string
		var revenue int64
		var n uint64
		if err := rows.Scan(&prj, &revenue, &n); err != nil {
			t.Fatal(err)
		}
		got[prj], total = revenue, total+int(n)
	}
	return got, total
}

// Two Drainers of 4 partitions over one database, as two workers run them, drain at once (each
// is inside a batch while the other is), every row exactly once, and each project's rows in
// the order they were queued.
func TestPartitionedDrainersDrainOnceInOrder(t *testing.T) {
	f := newPartitionFixture(t)
	ctx := context.Background()
	var mu sync.Mutex
	last := map[string]int64{} // the last id inserted per project
	seen := map[int64]bool{}
	inside := []chan struct{}{make(chan struct{}), make(chan struct{})}
	drainers := make([]*outbox.Drainer, 2)
	for i := range drainers {
		d := factstream.NewDrainer(f.pg.Pool, f.ch.Conn, f.clk, nil)
		d.Partitions = 4
		outbox.SetBatchSize(d, 20)
		first := true
		outbox.SetCrash(d, func(step string, keys []outbox.RowKey) error {
			if step != "insert" {
				return nil
			}
			if first { // wait, inside this batch, until the other Drainer is inside one too
				first = false
				close(inside[i])
				select {
				case <-inside[1-i]:
				case <-time.After(20 * time.Second):
					t.Error("the other Drainer never drained while this one held a partition")
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for _, k := range keys {
				if seen[k.ID] {
					t.Errorf("row %d inserted twice", k.ID)
				}
				if k.ID < last[k.Project] {
					t.Errorf("project %s: row %d inserted after row %d", k.Project, k.ID, last[k.Project])
				}
				seen[k.ID], last[k.Project] = true, k.ID
			}
			return nil
		})
		drainers[i] = d
	}
	var wg sync.WaitGroup
	applied := make([]int, 2)
	for i, d := range drainers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			n, err := d.RunOnce(ctx)
			if err != nil {
				t.Errorf("drainer %d: %v", i, err)
			}
			applied[i] = n
		}()
	}
	wg.Wait()
	if applied[0]+applied[1] != f.rows || len(seen) != f.rows {
		t.Fatalf("applied %v, %d rows inserted, want %d", applied, len(seen), f.rows)
	}
	got, rows := f.landed(t)
	if rows != f.rows || fmt.Sprint(got) != fmt.Sprint(f.queue) {
		t.Fatalf("facts_raw: %d rows, revenue %v; want %d rows, %v", rows, got, f.rows, f.queue)
	}
	if left := outboxLeft(t, f.pg.Pool); left != (outboxCounts{}) {
		t.Fatalf("left in PostgreSQL: %+v", left)
	}
}

// A partition whose locks another session holds, as the Drainer of that partition would, is left
// to it; the others are drained. A Drainer of the whole outbox and those of partitions exclude
// each other.
func TestHeldPartitionDoesNotStopTheOthers(t *testing.T) {
	f := newPartitionFixture(t)
	ctx := context.Background()
	var held int
	if err := f.pg.Pool.QueryRow(ctx, "SELECT "+outbox.PartitionOf("'prj_0'", "$1")+"::int", 4).Scan(&held); err != nil {
		t.Fatal(err)
	}
	other, err := f.pg.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Release()
	lock := pglock.DrainPartition("fact_outbox", 4, held)
	if _, err := other.Exec(ctx, "SELECT pg_advisory_lock_shared($2), pg_advisory_lock("+pglock.KeyedID+")", lock, pglock.FactDrainer); err != nil {
		t.Fatal(err)
	}
	d := factstream.NewDrainer(f.pg.Pool, f.ch.Conn, f.clk, nil)
	d.Partitions = 4
	n, err := d.RunOnce(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var left, leftElsewhere int
	if err := f.pg.Pool.QueryRow(ctx, "SELECT count(*), count(*) FILTER (WHERE "+outbox.PartitionOf("project_id", "$1")+" <> $2) FROM fact_outbox",
		4, held).Scan(&left, &leftElsewhere); err != nil {
		t.Fatal(err)
	}
	if left == 0 || leftElsewhere != 0 || n != f.rows-left {
		t.Fatalf("with partition %d held: applied %d, %d rows left (%d of other partitions)", held, n, left, leftElsewhere)
	}

	// The whole outbox's Drainer waits for the partitions' to finish, and they for it.
	whole := factstream.NewDrainer(f.pg.Pool, f.ch.Conn, f.clk, nil)
	if n, err := whole.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("whole-outbox drainer beside a partition's: %d %v", n, err)
	}
	if _, err := other.Exec(ctx, "SELECT pg_advisory_unlock_shared($2), pg_advisory_unlock("+pglock.KeyedID+")", lock, pglock.FactDrainer); err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec(ctx, "SELECT pg_advisory_lock($1)", pglock.FactDrainer); err != nil {
		t.Fatal(err)
	}
	if n, err := d.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("partitions' drainer beside the whole outbox's: %d %v", n, err)
	}
	if _, err := other.Exec(ctx, "SELECT pg_advisory_unlock($1)", pglock.FactDrainer); err != nil {
		t.Fatal(err)
	}
	if n, err := d.RunOnce(ctx); err != nil || n != left {
		t.Fatalf("after the release: applied %d, want %d", n, left)
	}
	got, rows := f.landed(t)
	if rows != f.rows || fmt.Sprint(got) != fmt.Sprint(f.queue) {
		t.Fatalf("facts_raw: %d rows, revenue %v; want %d rows, %v", rows, got, f.rows, f.queue)
	}
}
