package adsync_test

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/adsync"
	"mtk/internal/adsim"
	"mtk/internal/db"
	"mtk/internal/testenv"
)

// insertHold is how long the proxy holds the interrupted run's insert: the next run must wait
// it out.
const insertHold = 2 * time.Second

// A run killed (its context ended) while ClickHouse is still receiving its facts_raw insert (a
// proxy holds the insert's data, as a busy server does) leaves that insert running on the server,
// which stores it after the run is gone. The next run of the connection completes the pending
// batch: it waits for the orphaned insert before it looks the batch's rows up, so it finds them
// and every fact is stored once (without the wait it finds none and writes them all again).
func TestSyncWaitsForAnInterruptedInsert(t *testing.T) {
	ch := testenv.ClickHouse(t)
	u, err := url.Parse(ch.URL)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorldOn(t, interruptedStart, 40, ch.Conn)
	interruptedSync(t, w, u.Host, func(proxy string) driver.Conn {
		p := *u
		p.Host = proxy
		return openCH(t, func(ctx context.Context) (driver.Conn, error) { return db.OpenClickHouse(ctx, p.String()) })
	})
}

// The same on the two-shard cluster: the killed run talked to the first shard, the next run talks
// to the second and waits for the insert there.
func TestSyncWaitsForAnInterruptedInsertOnACluster(t *testing.T) {
	c := testenv.ClickHouseCluster(t)
	shards := testenv.ClusterShardURLs()
	open := func(server string) driver.Conn {
		u, err := url.Parse(server)
		if err != nil {
			t.Fatal(err)
		}
		u.Path = "/" + c.Name
		return openCH(t, func(ctx context.Context) (driver.Conn, error) {
			return db.OpenClickHouseCluster(ctx, u.String(), testenv.ClusterName)
		})
	}
	first, err := url.Parse(shards[0])
	if err != nil {
		t.Fatal(err)
	}
	w := newWorldOn(t, interruptedStart, 40, open(shards[1]))
	w.syncer.Cluster = testenv.ClusterName
	interruptedSync(t, w, first.Host, func(proxy string) driver.Conn { return open("clickhouse://" + proxy) })
}

var interruptedStart = time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC)

func openCH(t *testing.T, open func(context.Context) (driver.Conn, error)) driver.Conn {
	t.Helper()
	conn, err := open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// interruptedSync runs a first sync of each connection on a connection opened by open through a
// proxy in front of server (host:port) that holds facts_raw inserts for insertHold, kills the run
// once its insert is held, and runs the next sync (w's syncer) at once: ClickHouse must then
// equal the snapshot and, days later, the simulator's truth.
func interruptedSync(t *testing.T, w *world, server string, open func(proxy string) driver.Conn) {
	t.Helper()
	ctx := context.Background()
	held := make(chan struct{}, 1)
	proxy := testenv.NewSlowInserts(t, server, insertHold, func(table string) bool { return table == "facts_raw" },
		func(string) {
			select {
			case held <- struct{}{}:
			default:
			}
		})
	slow := *w.syncer
	slow.ClickHouse = open(proxy.Addr())

	networks := make([]adsim.Network, 0, len(w.conns))
	for n := range w.conns {
		networks = append(networks, n)
	}
	slices.Sort(networks)
	for _, n := range networks {
		runCtx, kill := context.WithCancel(ctx)
		go func() { <-held; kill() }()
		_, err := slow.Run(runCtx, w.conn(n), adsync.Options{})
		killed := runCtx.Err() != nil
		kill()
		if err == nil || !killed {
			t.Fatalf("%s: the run was not killed mid-insert (it ended with %v)", n, err)
		}
		if proxy.Holding.Load() == 0 {
			t.Fatalf("%s: the killed run's insert is no longer held: the test proves nothing", n)
		}
		// The next run, at once, completes the batch while the orphaned insert still runs.
		if _, err := w.syncer.Run(ctx, w.conn(n), adsync.Options{}); err != nil {
			t.Fatalf("%s: the run after the kill: %v", n, err)
		}
	}
	if w.pending() != 0 {
		t.Fatalf("%d batches still pending", w.pending())
	}
	w.matchesSnapshot(t)
	if rows := w.syncAll(); rows != 0 {
		t.Fatalf("a repeated sync wrote %d rows", rows)
	}
	w.clock.Advance(3*24*time.Hour + 2*time.Hour)
	w.syncAll()
	w.matchesSnapshot(t)
	w.matchesTruth(t, interruptedStart)
}
