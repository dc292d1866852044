package ratelimit

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"mtk/internal/testenv"
)

// TestRedisTakeAnswersAsMemory: the same requests get the same decisions from Redis as from
// Memory, refused ones and the next window included.
func TestRedisTakeAnswersAsMemory(t *testing.T) {
	ctx := context.Background()
	rd := testenv.NewRedis(t)
	r, m := NewRedis(rd.Client, rd.Prefix), NewMemory()
	for i, c := range []struct {
		key string
		at  time.Duration
	}{{"key:a", 10 * time.Second}, {"key:a", 20 * time.Second}, {"key:a", 30 * time.Second}, {"key:a", 59 * time.Second},
		{"key:a", 59 * time.Second}, {"key:b", 59 * time.Second}, {"key:a", Window}, {"key:a", Window + time.Second}} {
		want, _ := m.Take(ctx, c.key, 3, t0.Add(c.at))
		got, err := r.Take(ctx, c.key, 3, t0.Add(c.at))
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("take %d (%s at %s): redis %+v, memory %+v", i, c.key, c.at, got, want)
		}
	}
}

// TestRedisTakeConcurrent: concurrent takes on separate clients allow exactly the limit.
func TestRedisTakeConcurrent(t *testing.T) {
	rd := testenv.NewRedis(t)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 3 {
		r := NewRedis(testenv.NewRedis(t).Client, rd.Prefix)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 10 {
					if d, err := r.Take(context.Background(), "shared", 25, t0); err == nil && d.Allowed {
						allowed.Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	if allowed.Load() != 25 {
		t.Fatalf("%d takes allowed, want exactly 25", allowed.Load())
	}
}

// TestRedisFailures: the sliding window, refusals not counted, Clear, and concurrent attempts,
// as MemoryFailures answers them.
func TestRedisFailures(t *testing.T) {
	rd := testenv.NewRedis(t)
	f := NewRedis(rd.Client, rd.Prefix).Failures(3, 15*time.Minute)
	for i, at := range []time.Duration{0, 5 * time.Minute, 14 * time.Minute} {
		if d := attempt(t, f, "a", at); !d.Allowed {
			t.Fatalf("attempt %d refused: %+v", i+1, d)
		}
	}
	for range 5 {
		if d := attempt(t, f, "a", 14*time.Minute+59*time.Second); d.Allowed || !d.RetryAt.Equal(t0.Add(15*time.Minute)) {
			t.Fatalf("fourth attempt: %+v, want refused until the first is 15 minutes old", d)
		}
	}
	if d := attempt(t, f, "b", 14*time.Minute); !d.Allowed {
		t.Fatal("another key is limited")
	}
	if d := attempt(t, f, "a", 15*time.Minute); !d.Allowed {
		t.Fatalf("15 minutes after the first: %+v", d)
	}
	if d := attempt(t, f, "a", 16*time.Minute); d.Allowed || !d.RetryAt.Equal(t0.Add(20*time.Minute)) {
		t.Fatalf("next refusal: %+v, want until 20 minutes", d)
	}
	if err := f.Clear(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if d := attempt(t, f, "a", 16*time.Minute); !d.Allowed {
		t.Fatal("Clear did not free the key")
	}

	concurrentAttemptsAllowExactly(t, NewRedis(rd.Client, rd.Prefix).Failures(10, 15*time.Minute), 10)
}

// TestRedisTakeExactCounts: concurrent Takes on one Redis each get their own count: for each of
// two keys the counts are exactly 1..N (so Remaining is exact), Redis holds N, and each counter
// has its expiry (set by the script only when the counter is new).
func TestRedisTakeExactCounts(t *testing.T) {
	const n = 60
	ctx := context.Background()
	rd := testenv.NewRedis(t)
	r := NewRedis(rd.Client, rd.Prefix)
	keys := []string{"key:a", "key:b"}
	remaining := make([][]int, len(keys))
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		for k, key := range keys {
			wg.Add(1)
			go func() {
				defer wg.Done()
				d, err := r.Take(ctx, key, n, t0.Add(10*time.Second))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				remaining[k] = append(remaining[k], d.Remaining)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for k, key := range keys {
		slices.Sort(remaining[k])
		for i, got := range remaining[k] {
			if got != i {
				t.Fatalf("%s: remaining %v, want each of 0..%d once", key, remaining[k], n-1)
			}
		}
		name := rd.Prefix + "rl:" + strconv.FormatInt(t0.Unix(), 10) + ":" + key
		if got, err := rd.Client.Get(ctx, name).Int(); err != nil || got != n {
			t.Fatalf("%s: counter %d (%v), want %d", key, got, err, n)
		}
		if ttl, err := rd.Client.PTTL(ctx, name).Result(); err != nil || ttl <= 0 {
			t.Fatalf("%s: time to live %s (%v), want one", key, ttl, err)
		}
	}
}
