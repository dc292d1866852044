package main

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// A worker killed (SIGKILL) in the middle of a drain loses and doubles nothing: a backlog of
// events (over projects in several of the 4 partitions) and orders waits in the outboxes; a first
// worker drains it into ClickHouse but is killed before its batches are settled in PostgreSQL (a
// table lock holds them back), while a second worker waits to settle a batch of another
// partition; the second then drains every partition, the dead one's included, and what the dead
// one inserted is found in ClickHouse, not inserted again.
func TestKilledWorkerLosesAndDoublesNothing(t *testing.T) {
	useTestStores(t)
	// A backend whose client is gone notices within 100 ms, even while it waits for a lock, and
	// rolls back, as it would on the client's next read.
	withPGSetting(t, "client_connection_check_interval", "100")
	t.Setenv("MTK_DRAIN_PARTITIONS", "4")
	t.Setenv("MTK_RATE_LIMITS", "off")
	w := newSalesWorld(t)
	ctx := context.Background()

	projects, domains := w.partitionedShops(t, 3)
	_, api := serveProcess(t, "--role", "api")
	events, orders := w.traffic(t, api, domains, 100)
	queued := w.count(t, "SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM fact_outbox)")

	// Settling a batch deletes its outbox rows: the lock lets a worker load, record its attempt
	// and insert into ClickHouse, and stops it there.
	lock := holdLock(ctx, t, "LOCK TABLE event_outbox, fact_outbox IN SHARE MODE")
	// Only these two outboxes' settles count: the credit worker, attributing orders again after
	// a late touch, writes facts too and may wait on the same lock.
	const waiting = `FROM pg_stat_activity WHERE datname = current_database()
		AND wait_event_type = 'Lock'
		AND (query LIKE '%DELETE FROM event_outbox%' OR query LIKE '%DELETE FROM fact_outbox%')`
	settling := func() int64 { return w.count(t, `SELECT count(*) `+waiting) }
	// waitSettling waits until n batches wait to be settled.
	waitSettling := func(n int64, what string) {
		t.Helper()
		for i := 0; settling() != n; i++ {
			if i == 200 {
				t.Fatalf("%d batches wait to be settled, want %d: %s", settling(), n, what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// The first worker takes a partition of each outbox (the facts are all in one); the second
	// then takes another partition of events, and waits too.
	first, _ := serveProcess(t, "--role", "worker")
	waitSettling(2, "the first worker's batches of each outbox")
	var firsts []int32
	if err := w.st.pg.QueryRow(ctx, `SELECT array_agg(pid) `+waiting).Scan(&firsts); err != nil {
		t.Fatal(err)
	}
	serveProcess(t, "--role", "worker")
	waitSettling(3, "and the second worker's batch of events")
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait() //nolint:errcheck // killed
	// The killed worker's backends roll back. The second worker may meanwhile take the partition
	// they held and wait to settle it too, so they are told apart by their process ids.
	for i := 0; w.count(t, `SELECT count(*) FROM pg_stat_activity WHERE pid = ANY($1)`, firsts) != 0; i++ {
		if i == 200 {
			t.Fatalf("the killed worker's backends %v still run", firsts)
		}
		time.Sleep(50 * time.Millisecond)
	}
	var inserted uint64
	if err := w.st.ch.QueryRow(ctx, "SELECT count() FROM events WHERE event_id LIKE 'ev-%'").Scan(&inserted); err != nil {
		t.Fatal(err)
	}
	if inserted == 0 || w.count(t, "SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM fact_outbox)") != queued {
		t.Fatalf("%d events in ClickHouse, and the outboxes changed: not killed mid-drain", inserted)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	w.exactlyOnce(t, projects, events, orders)
	// The credit worker may still write facts for the orders (attributing them again), whose
	// batches hold an attempt while they land: every attempt is settled once the outboxes are.
	const left = `SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM fact_outbox)
		+ (SELECT count(*) FROM journey_outbox) + (SELECT count(*) FROM credit_dirty)
		+ (SELECT count(*) FROM credit_outbox) + (SELECT count(*) FROM outbox_attempts)`
	for i := 0; w.count(t, left) != 0; i++ {
		if i == 600 {
			t.Fatalf("%d outbox rows and attempts left after the drain (%d attempts)", w.count(t, left),
				w.count(t, "SELECT count(*) FROM outbox_attempts"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// partitionedShops adds shops to the world until the projects fall in at least n of the 4 drain
// partitions, and returns the projects (the world's first) and their containers' domains.
func (w salesWorld) partitionedShops(t *testing.T, n int) (projects, domains []string) {
	t.Helper()
	projects, domains = []string{w.project}, []string{"shop.example"}
	parts := map[int64]bool{w.count(t, "SELECT (hashtext($1)::bigint + 2147483648) % 4", w.project): true}
	for i := 0; len(parts) < n; i++ {
		if i == 20 {
			t.Fatalf("20 projects fall in partitions %v", parts)
		}
		domain := fmt.Sprintf("shop%d.example", i)
		projects, domains = append(projects, w.shop(t, domain)), append(domains, domain)
		parts[w.count(t, "SELECT (hashtext($1)::bigint + 2147483648) % 4", projects[len(projects)-1])] = true
	}
	return projects, domains
}

// traffic sends api, from 4 clients at once, perClient events each over the domains and an order
// after every fourth, as shops and their checkouts do, and returns the acknowledged events and
// orders by id.
func (w salesWorld) traffic(t *testing.T, api string, domains []string, perClient int) (events, orders map[string]bool) {
	t.Helper()
	events, orders = map[string]bool{}, map[string]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for c := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				id := fmt.Sprintf("ev-%d-%d", c, i)
				if status, _, _, err := postEvent(api, w.token, id, w.event(domains[i%len(domains)], id)); err != nil || status != 200 {
					t.Errorf("event %s: %d %v", id, status, err)
					return
				}
				mu.Lock()
				events[id] = true
				mu.Unlock()
				if i%4 == 0 {
					id = fmt.Sprintf("order-%d-%d", c, i)
					if status, err := w.postOrder(api, id, 1000+i, time.Now()); err != nil || status != 200 {
						t.Errorf("order %s: %d %v", id, status, err)
						return
					}
					mu.Lock()
					orders[id] = true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return events, orders
}
