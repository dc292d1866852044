package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)

func TestMemoryTake(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	for i := 1; i <= 3; i++ {
		d, err := m.Take(ctx, "key:a", 3, t0.Add(10*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		want := Decision{Allowed: true, Limit: 3, Remaining: 3 - i, Reset: t0.Add(Window)}
		if d != want {
			t.Fatalf("take %d: got %+v, want %+v", i, d, want)
		}
	}
	if d, _ := m.Take(ctx, "key:a", 3, t0.Add(59*time.Second)); d.Allowed || d.Remaining != 0 {
		t.Fatalf("fourth take in the window: %+v, want refused", d)
	}
	if d, _ := m.Take(ctx, "key:b", 3, t0.Add(59*time.Second)); !d.Allowed || d.Remaining != 2 {
		t.Fatalf("other key: %+v, want its own counter", d)
	}
	d, _ := m.Take(ctx, "key:a", 3, t0.Add(Window))
	if want := (Decision{Allowed: true, Limit: 3, Remaining: 2, Reset: t0.Add(2 * Window)}); d != want {
		t.Fatalf("next window: got %+v, want %+v", d, want)
	}
}

func TestMemoryLateCallCountsInCurrentWindow(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	m.Take(ctx, "k", 2, t0.Add(Window))
	d, _ := m.Take(ctx, "k", 2, t0.Add(59*time.Second))
	if want := (Decision{Allowed: true, Limit: 2, Remaining: 0, Reset: t0.Add(2 * Window)}); d != want {
		t.Fatalf("got %+v, want %+v", d, want)
	}
}

func TestMemoryDropsPastWindows(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	// Enough keys that every shard is used in both windows.
	const keys = 5000
	for i := range keys {
		m.Take(ctx, fmt.Sprintf("old:%d", i), 10, t0)
	}
	for i := range keys {
		m.Take(ctx, fmt.Sprintf("new:%d", i), 10, t0.Add(Window))
	}
	total := 0
	for i := range m.shards {
		for k := range m.shards[i].counts {
			if k[:4] == "old:" {
				t.Fatalf("counter %s of a past window kept", k)
			}
			total++
		}
	}
	if total != keys {
		t.Fatalf("%d counters, want %d", total, keys)
	}
}

func TestMemoryConcurrentTakes(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	const limit, workers, each = 100, 16, 50
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if d, _ := m.Take(ctx, "shared", limit, t0); d.Allowed {
					allowed.Add(1)
				}
				m.Take(ctx, fmt.Sprintf("own:%d", w), limit, t0)
			}
		}()
	}
	wg.Wait()
	if allowed.Load() != limit {
		t.Fatalf("%d allowed, want exactly %d", allowed.Load(), limit)
	}
}
