package adsync_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"mtk/adsync"
)

var errInjected = errors.New("injected failure")

// TestBatchLandsOnceAfterFailure stops the first sync of every connection at each point of its
// batch (after the facts_raw insert, after the facts_hourly_in insert, after the facts_daily_in
// insert, before the snapshot transaction as a crash would, and inside it before the commit),
// then lets the next sync (or Recover) complete it: ClickHouse then equals the snapshot, a
// further sync writes nothing, and three days later every final day and hour equals the
// simulator's truth exactly. Nothing is lost and nothing counted twice.
func TestBatchLandsOnceAfterFailure(t *testing.T) {
	for _, tc := range []struct {
		point   string
		recover bool // complete with Syncer.Recover rather than the next run
	}{
		{point: "facts_raw"},
		{point: "facts_hourly_in"},
		{point: "facts_daily_in", recover: true},
		{point: "apply"},
		{point: "commit", recover: true},
	} {
		t.Run(tc.point, func(t *testing.T) {
			ctx := context.Background()
			start := time.Date(2024, 5, 20, 13, 5, 0, 0, time.UTC)
			w := newWorld(t, start, 40)
			armed, reached := true, 0
			adsync.SetFailAt(w.syncer, func(point string) error {
				if armed && point == tc.point {
					reached++
					return errInjected
				}
				return nil
			})
			for n := range w.conns {
				if _, err := w.syncer.Run(ctx, w.conn(n), adsync.Options{}); !errors.Is(err, errInjected) {
					t.Fatalf("%s: the first sync ended with %v, not the injected failure", n, err)
				}
			}
			if reached != len(w.conns) || w.pending() != len(w.conns) {
				t.Fatalf("reached the failure point %d times, %d batches pending", reached, w.pending())
			}
			armed = false
			if tc.recover {
				for n, c := range w.conns {
					if rows, err := w.syncer.Recover(ctx, c.ID); err != nil {
						t.Fatalf("%s: recover: %v", n, err)
					} else if tc.point == "commit" && rows != 0 {
						t.Fatalf("%s: every row was stored before the commit failed, yet recovery wrote %d", n, rows)
					}
				}
				if w.pending() != 0 {
					t.Fatalf("%d batches still pending after Recover", w.pending())
				}
			}
			w.syncAll()
			if w.pending() != 0 {
				t.Fatalf("%d batches still pending", w.pending())
			}
			w.matchesSnapshot(t)
			if rows := w.syncAll(); rows != 0 {
				t.Fatalf("a repeated sync after recovery wrote %d rows", rows)
			}
			w.clock.Advance(3*24*time.Hour + 2*time.Hour)
			w.syncAll()
			if rows := w.syncAll(); rows != 0 {
				t.Fatalf("a repeated sync wrote %d rows", rows)
			}
			w.matchesSnapshot(t)
			w.matchesTruth(t, start)
		})
	}
}

// pending counts the batches left pending.
func (w *world) pending() int {
	w.t.Helper()
	var n int
	if err := w.pg.Pool.QueryRow(context.Background(), "SELECT count(*) FROM sync_batches WHERE status = 'pending'").Scan(&n); err != nil {
		w.t.Fatal(err)
	}
	return n
}

// matchesSnapshot checks that facts_daily holds, per ad and day, exactly the sum of the
// snapshot's buckets of that day, for every connection (each project is in its account's zone).
func (w *world) matchesSnapshot(t *testing.T) {
	t.Helper()
	for n, c := range w.conns {
		rows, err := w.pg.Pool.Query(context.Background(), `SELECT ad_id || ' ' || to_char(local_date, 'YYYY-MM-DD'),
			sum(spend), sum(impressions), sum(clicks), sum(reach), sum(video_plays), sum(video_views_3s), sum(video_views_p75)
			FROM sync_buckets WHERE connection_id = $1 GROUP BY 1`, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]metricsRow{}
		for rows.Next() {
			var k string
			var r metricsRow
			if err := rows.Scan(&k, &r.Spend, &r.Impressions, &r.Clicks, &r.Reach, &r.Plays, &r.Views3s, &r.P75); err != nil {
				t.Fatal(err)
			}
			if r != (metricsRow{}) {
				want[k] = r
			}
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		got := w.stored("facts_daily", "toString(day)", c.ID)
		for k, v := range got {
			if v == (metricsRow{}) {
				delete(got, k)
			}
		}
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%s: ClickHouse holds %d ad days, the snapshot %d", n, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%s: %s is %+v in ClickHouse, %+v in the snapshot", n, k, got[k], v)
			}
		}
	}
}
