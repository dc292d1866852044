package adsync_test

import (
	"context"
	"net/url"
	"slices"
	"testing"
	"time"

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
	ctx := context.Background()
	start := time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC)
	w := newWorld(t, start, 40)
	u, err := url.Parse(w.chURL)
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan struct{}, 1)
	proxy := testenv.NewSlowInserts(t, u.Host, insertHold, func(table string) bool { return table == "facts_raw" },
		func(string) {
			select {
			case held <- struct{}{}:
			default:
			}
		})
	through := *u
	through.Host = proxy.Addr()
	slowCH, err := db.OpenClickHouse(ctx, through.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slowCH.Close() })
	slow := *w.syncer
	slow.ClickHouse = slowCH

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
	w.matchesTruth(t, start)
}
