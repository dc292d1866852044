package ttlcache

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestExpiryBoundAndForget(t *testing.T) {
	c := New[string, int](time.Second, 2)
	c.Put("a", 1, t0)
	if v, ok := c.Get("a", t0.Add(999*time.Millisecond)); !ok || v != 1 {
		t.Fatalf("fresh: %d %v", v, ok)
	}
	if _, ok := c.Get("a", t0.Add(time.Second)); ok {
		t.Fatal("trusted after its TTL")
	}
	if _, ok := c.Get("a", t0.Add(-time.Millisecond)); ok {
		t.Fatal("trusted with the clock set back")
	}
	c.Put("b", 2, t0)
	c.Put("c", 3, t0) // full: starts over
	if _, ok := c.Get("a", t0); ok {
		t.Fatal("more than max entries kept")
	}
	c.Forget(func(k string, v int) bool { return v == 3 })
	if _, ok := c.Get("c", t0); ok {
		t.Fatal("forgotten entry kept")
	}
	c.Put("d", 4, t0)
	c.Clear()
	if _, ok := c.Get("d", t0); ok {
		t.Fatal("entry kept after Clear")
	}
}

// A value read while Forget ran may predate what was forgotten (whatever entries Forget matched):
// it is answered but not kept.
func TestForgetDuringLoad(t *testing.T) {
	c := New[string, int](time.Minute, 10)
	got, err := c.Load("k", t0, func() (int, error) {
		c.Forget(func(string, int) bool { return false })
		return 1, nil
	})
	if err != nil || got != 1 {
		t.Fatalf("%d %v", got, err)
	}
	if _, ok := c.Get("k", t0); ok {
		t.Fatal("a value loaded across a Forget was kept")
	}
}

func TestLoadOnceForConcurrentCallers(t *testing.T) {
	c := New[string, int](time.Minute, 10)
	var calls atomic.Int64
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v, err := c.Load("k", t0, func() (int, error) {
				calls.Add(1)
				<-release
				return 7, nil
			})
			if err != nil || v != 7 {
				t.Errorf("%d %v", v, err)
			}
		}()
	}
	// Release the one load only once every caller is inside Load: the loader in load, the others
	// waiting for it.
	for deadline := time.Now().Add(5 * time.Second); inLoad() < 20; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 20 callers inside Load after 5 s", inLoad())
		}
	}
	close(release)
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("%d loads for 20 concurrent callers", calls.Load())
	}
	boom := errors.New("boom")
	if _, err := c.Load("e", t0, func() (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if _, ok := c.Get("e", t0); ok {
		t.Fatal("a failed load was stored")
	}
}

// inLoad counts the goroutines inside Cache.Load, from their stacks: the cache has no count of
// its waiters to read, and a test-only one would be code the product does not need.
func inLoad() int {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "ttlcache.(*Cache[...]).Load(") {
			n++
		}
	}
	return n
}

// Keys whose loads fail keep no entry: a flood of them leaves the cache's good values in place.
func TestFailedLoadsKeepNothing(t *testing.T) {
	c := New[string, int](time.Minute, 3)
	c.Put("good", 1, t0)
	unknown := errors.New("unknown")
	for i := range 100 {
		if _, err := c.Load(strings.Repeat("x", i), t0, func() (int, error) { return 0, unknown }); err != unknown {
			t.Fatalf("load %d: %v", i, err)
		}
	}
	if n := len(c.entries); n != 1 {
		t.Fatalf("%d entries after failed loads, want 1", n)
	}
	if v, ok := c.Get("good", t0); !ok || v != 1 {
		t.Fatalf("good value after a flood of failed loads: %d %v", v, ok)
	}
}
