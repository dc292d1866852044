package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// attempt is m.Attempt at t0 + at, failing the test on an error.
func attempt(t *testing.T, m Failures, key string, at time.Duration) AttemptDecision {
	t.Helper()
	d, err := m.Attempt(context.Background(), key, t0.Add(at))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestFailuresSlidingWindow: the limit holds over any window, not per aligned window: an attempt
// comes back when the oldest counted one is a window old, one at a time.
func TestFailuresSlidingWindow(t *testing.T) {
	m := NewMemoryFailures(3, 15*time.Minute, 1000)
	for i, at := range []time.Duration{0, 5 * time.Minute, 14 * time.Minute} {
		if d := attempt(t, m, "a", at); !d.Allowed {
			t.Fatalf("attempt %d refused: %+v", i+1, d)
		}
	}
	d := attempt(t, m, "a", 14*time.Minute+59*time.Second)
	if d.Allowed || !d.RetryAt.Equal(t0.Add(15*time.Minute)) {
		t.Fatalf("fourth attempt: %+v, want refused until the first is 15 minutes old", d)
	}
	if d := attempt(t, m, "b", 14*time.Minute); !d.Allowed {
		t.Fatal("another key is limited")
	}
	if d := attempt(t, m, "a", 15*time.Minute); !d.Allowed {
		t.Fatalf("15 minutes after the first: %+v", d)
	}
	// The window now holds the attempts at 5, 14 and 15 minutes.
	if d := attempt(t, m, "a", 16*time.Minute); d.Allowed || !d.RetryAt.Equal(t0.Add(20*time.Minute)) {
		t.Fatalf("next refusal: %+v, want until 20 minutes", d)
	}
}

// TestFailuresRefusedAreNotCounted: waiting out the refusal is enough, however many refused
// attempts came meanwhile; Clear frees the key at once and no other.
func TestFailuresRefusedAreNotCounted(t *testing.T) {
	m := NewMemoryFailures(2, time.Minute, 1000)
	attempt(t, m, "a", 0)
	attempt(t, m, "a", 0)
	attempt(t, m, "b", 0)
	attempt(t, m, "b", 0)
	for range 50 {
		if d := attempt(t, m, "a", 30*time.Second); d.Allowed {
			t.Fatal("over the limit allowed")
		}
	}
	if d := attempt(t, m, "a", time.Minute); !d.Allowed {
		t.Fatalf("refused attempts were counted: %+v", d)
	}
	if err := m.Clear(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	if d := attempt(t, m, "a", time.Minute); !d.Allowed {
		t.Fatal("Clear did not free the key")
	}
	if d := attempt(t, m, "b", 30*time.Second); d.Allowed {
		t.Fatal("Clear of one key freed another")
	}
}

// TestFailuresBounded: memory holds about maxKeys keys whatever comes; a flood of new keys
// evicts those with fewer attempts first, and a key at its limit stays refused.
func TestFailuresBounded(t *testing.T) {
	const maxKeys = 640
	m := NewMemoryFailures(3, 15*time.Minute, maxKeys)
	for range 3 {
		attempt(t, m, "target", 0)
	}
	for i := range 20 * maxKeys {
		attempt(t, m, fmt.Sprintf("flood-%d", i), time.Minute)
	}
	total := 0
	for i := range m.shards {
		total += len(m.shards[i].times)
	}
	if total > maxKeys {
		t.Fatalf("%d keys kept, want at most %d", total, maxKeys)
	}
	if d := attempt(t, m, "target", 2*time.Minute); d.Allowed {
		t.Fatal("a flood of one-attempt keys evicted a key at its limit")
	}
	// Past the window, expired keys make room before anything counted is dropped.
	for i := range 20 * maxKeys {
		attempt(t, m, fmt.Sprintf("later-%d", i), 20*time.Minute)
	}
	total = 0
	for i := range m.shards {
		total += len(m.shards[i].times)
	}
	if total > maxKeys {
		t.Fatalf("%d keys kept after the window, want at most %d", total, maxKeys)
	}
}

// TestFailuresConcurrentAttempts: concurrent guesses for one key reserve exactly the limit.
func TestFailuresConcurrentAttempts(t *testing.T) {
	concurrentAttemptsAllowExactly(t, NewMemoryFailures(10, 15*time.Minute, 1000), 10)
}

// concurrentAttemptsAllowExactly has 16 goroutines make 20 attempts each for one key of f and
// fails the test unless exactly want were allowed.
func concurrentAttemptsAllowExactly(t *testing.T, f Failures, want int64) {
	t.Helper()
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if d, _ := f.Attempt(context.Background(), "shared", t0); d.Allowed {
					allowed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != want {
		t.Fatalf("%d concurrent attempts allowed, want exactly %d", allowed.Load(), want)
	}
}
