package outbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/events"
	"mtk/ingest/outbox"
	"mtk/internal/chfence"
	"mtk/internal/clock"
	"mtk/internal/db"
	"mtk/internal/testenv"
)

// insertHold is how long the proxy holds an interrupted try's insert: the recovery must wait it out.
const insertHold = 2 * time.Second

// An interrupted try's INSERT still running on one server (its data held by a proxy, as a busy
// server holds it) is waited for before the next run looks its rows up: the next run finds them
// and inserts nothing again.
func TestDrainerWaitsForAnInterruptedInsert(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	u, err := url.Parse(ch.URL)
	if err != nil {
		t.Fatal(err)
	}
	orphan := func(proxy string) driver.Conn {
		p := *u
		p.Host = proxy
		conn, err := db.OpenClickHouse(context.Background(), p.String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	d := events.NewDrainer(pg.Pool, ch.Conn, clock.Real{}, slog.New(slog.DiscardHandler))
	interruptedInsert(t, pg.Pool, d, u.Host, orphan)
}

// The same on the two-shard cluster: the interrupted try ran on the first shard, the next run
// talks to the second and waits for it there.
func TestDrainerWaitsForAnInterruptedInsertOnACluster(t *testing.T) {
	pg := testenv.Postgres(t)
	c := testenv.ClickHouseCluster(t)
	shards := testenv.ClusterShardURLs()
	ctx := context.Background()
	open := func(server string) driver.Conn {
		u, err := url.Parse(server)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + c.Name
		conn, err := db.OpenClickHouseCluster(ctx, u.String(), testenv.ClusterName)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return conn
	}
	first, err := url.Parse(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	d := events.NewDrainer(pg.Pool, open(shards[1]), clock.Real{}, slog.New(slog.DiscardHandler))
	d.Cluster = testenv.ClusterName
	interruptedInsert(t, pg.Pool, d, first.Host, func(proxy string) driver.Conn { return open("clickhouse://" + proxy) })
	// The events landed on both shards.
	for i, s := range c.Shards {
		var n uint64
		if err := s.QueryRow(ctx, "SELECT count() FROM events_local").Scan(&n); err != nil || n == 0 {
			t.Errorf("shard %d holds %d events (%v)", i+1, n, err)
		}
	}
}

// interruptedInsert queues events of two projects, starts a try of d's batch as d does (its
// attempt recorded, its insert named) on a connection opened by open through a proxy in front of
// server (host:port) that holds the insert's data for insertHold, and runs d again meanwhile:
// every event must be stored once (without the fence, the run finds none of them and inserts
// them all again).
func interruptedInsert(t *testing.T, pool *pgxpool.Pool, d *outbox.Drainer, server string, open func(proxy string) driver.Conn) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Second)
	var rows []events.EventRow
	for i := range 200 {
		rows = append(rows, events.EventRow{ProjectID: fmt.Sprintf("prj_%d", i%2), ContainerID: "ctn_1", EventID: fmt.Sprintf("ev-%d", i),
			Name: "Lead", Time: now, ReceivedAt: now})
	}
	queueEvents(t, pool, rows)

	held := make(chan struct{}, 1)
	proxy := testenv.NewSlowInserts(t, server, insertHold, func(table string) bool { return table == "events" },
		func(string) { held <- struct{}{} })
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	batch, err := outbox.LoadBatch(ctx, d, conn)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, k := range batch.Keys() {
		ids = append(ids, k.ID)
	}
	prefix := chfence.NewPrefix("drain")
	if err := outbox.RecordTry(ctx, d, conn, ids, prefix); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	landed := make(chan struct{})
	go func() {
		if err := batch.Insert(ctx, chfence.Named(open(proxy.Addr()), prefix), nil); err != nil {
			t.Errorf("the interrupted insert: %v", err)
		}
		close(landed)
	}()
	<-held

	start := time.Now()
	n, err := d.RunOnce(ctx)
	took := time.Since(start)
	if err != nil || n != len(rows) {
		t.Fatalf("the run after the interruption: %d rows, %v", n, err)
	}
	<-landed
	t.Logf("the run waited %s for the interrupted insert (held %s)", took, insertHold)
	var stored, ids2 uint64
	if err := outbox.ClickHouse(d).QueryRow(ctx, "SELECT count(), uniqExact(outbox_id) FROM events").Scan(&stored, &ids2); err != nil {
		t.Fatal(err)
	}
	if stored != uint64(len(rows)) || ids2 != stored {
		t.Errorf("events holds %d rows of %d outbox rows, want the %d events once", stored, ids2, len(rows))
	}
	var left int
	if err := pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM outbox_attempts)").Scan(&left); err != nil || left != 0 {
		t.Errorf("%d outbox rows and attempts left (%v)", left, err)
	}
}
