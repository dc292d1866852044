package batcher

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

func TestEveryItemAnsweredInOrder(t *testing.T) {
	var mu sync.Mutex
	sizes := map[int]int{}
	b := New(Config{MaxBatch: 10}, func(_ context.Context, items []int) ([]int, error) {
		mu.Lock()
		sizes[len(items)]++
		mu.Unlock()
		out := make([]int, len(items))
		for i, v := range items {
			out[i] = v * 2
		}
		return out, nil
	})
	var wg sync.WaitGroup
	for i := range 500 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := b.Submit(context.Background(), i)
			if err != nil || got != i*2 {
				t.Errorf("Submit(%d) = %d, %v", i, got, err)
			}
		}()
	}
	wg.Wait()
	b.Close()
	for size := range sizes {
		if size > 10 {
			t.Errorf("a batch of %d items exceeds MaxBatch", size)
		}
	}
	if _, err := b.Submit(context.Background(), 1); !errors.Is(err, ErrClosed) {
		t.Fatalf("Submit after Close: %v", err)
	}
}

// A batch begun while the flusher is busy is handed over as soon as the flusher is free, without
// waiting out Linger (an hour here).
func TestBusyFlusherSkipsLinger(t *testing.T) {
	started, release := make(chan []int, 4), make(chan struct{})
	first := true
	b := New(Config{MaxBatch: 2, Linger: time.Hour, MaxWait: time.Hour, Flushers: 1},
		func(_ context.Context, items []int) ([]int, error) {
			started <- items
			if first { // one flusher: flushes never overlap
				first = false
				<-release
			}
			return items, nil
		})
	defer b.Close()
	for _, v := range []int{1, 2} { // a full batch goes at once and holds the flusher
		go b.Submit(context.Background(), v) //nolint:errcheck
	}
	if got := <-started; len(got) != 2 {
		t.Fatalf("first batch %v", got)
	}
	// Set before the next item reaches the collector, which reads it after receiving the item.
	began := make(chan bool, 1)
	b.began = func(offered bool) { began <- offered }
	done := make(chan error, 1)
	go func() {
		_, err := b.Submit(context.Background(), 3)
		done <- err
	}()
	if !<-began {
		t.Fatal("a batch begun while the flusher was busy waits for Linger")
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the batch was not handed over when the flusher became free")
	}
	if got := <-started; len(got) != 1 || got[0] != 3 {
		t.Fatalf("second batch %v", got)
	}
}

func TestFlushErrorFailsTheBatch(t *testing.T) {
	boom := errors.New("store down")
	b := New(Config{}, func(context.Context, []string) ([]string, error) { return nil, boom })
	defer b.Close()
	if _, err := b.Submit(context.Background(), "x"); !errors.Is(err, boom) {
		t.Fatalf("got %v", err)
	}
}

func TestPanicFailsTheBatch(t *testing.T) {
	b := New(Config{}, func(context.Context, []string) ([]string, error) { panic("bad") })
	defer b.Close()
	if _, err := b.Submit(context.Background(), "x"); err == nil {
		t.Fatal("no error")
	}
}

// A stuck store fills the bounded queue; further items are refused at once, and everything
// accepted is stored once the store answers again.
func TestFullQueueRefusesAtOnce(t *testing.T) {
	release := make(chan struct{})
	entered := make(chan struct{}, 1)
	var mu sync.Mutex
	stored := 0
	b := New(Config{MaxBatch: 1, QueueSize: 3, Flushers: 1}, func(_ context.Context, items []int) ([]int, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
		mu.Lock()
		stored += len(items)
		mu.Unlock()
		return items, nil
	})
	results := make(chan error, 100)
	submit := func(v int) { _, err := b.Submit(context.Background(), v); results <- err }
	go submit(0)
	<-entered // the flusher holds item 0
	// Fill the collector's hand (one batch) and the queue (3), without timing: submit until one
	// is refused.
	accepted := 1
	for i := 1; ; i++ {
		it := &item[int, int]{ctx: context.Background(), v: i, done: make(chan result[int], 1)}
		select {
		case b.queue <- it:
			accepted++
			go func() { r := <-it.done; results <- r.err }()
			continue
		default:
		}
		break
	}
	if _, err := b.Submit(context.Background(), 99); !errors.Is(err, ErrOverloaded) {
		t.Fatalf("Submit on a full queue: %v", err)
	}
	close(release)
	for range accepted {
		if err := <-results; err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	if stored != accepted {
		t.Fatalf("stored %d of %d accepted items", stored, accepted)
	}
}

// Observe hears every flush: its size and its error.
func TestObserveHearsEveryFlush(t *testing.T) {
	var mu sync.Mutex
	sizes, failed := 0, 0
	observe := func(size int, _ time.Duration, err error) {
		mu.Lock()
		defer mu.Unlock()
		sizes += size
		if err != nil {
			failed += size
		}
	}
	boom := errors.New("store down")
	b := New(Config{MaxBatch: 10, Observe: observe}, func(_ context.Context, items []int) ([]int, error) {
		for _, v := range items {
			if v < 0 {
				return nil, boom
			}
		}
		return items, nil
	})
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() { defer wg.Done(); b.Submit(context.Background(), i) }() //nolint:errcheck
	}
	wg.Wait()
	if _, err := b.Submit(context.Background(), -1); !errors.Is(err, boom) {
		t.Fatalf("Submit(-1): %v", err)
	}
	b.Close()
	if sizes != 101 || failed != 1 { // -1 was submitted alone, after every other item was stored
		t.Fatalf("observed %d items, %d of them failed; want 101 and 1", sizes, failed)
	}
}

// A caller whose context ends while its item waits stops waiting with the context's error, and
// the item, its batch not begun, is not stored; its neighbours are.
func TestCallerThatStopsWaitingIsNotStored(t *testing.T) {
	stored := make(chan []int, 4)
	release := make(chan struct{})
	b := New(Config{MaxBatch: 1, Flushers: 1}, func(_ context.Context, items []int) ([]int, error) {
		if items[0] == 1 {
			<-release // holds the one flusher
		}
		stored <- items
		return items, nil
	})
	defer b.Close()
	go b.Submit(context.Background(), 1) //nolint:errcheck
	for b.busy.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b.Submit(ctx, 2); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v, want the context's deadline", err)
	}
	kept := make(chan error, 1)
	go func() { _, err := b.Submit(context.Background(), 3); kept <- err }()
	close(release)
	if err := <-kept; err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{1, 3} {
		if got := <-stored; len(got) != 1 || got[0] != want {
			t.Fatalf("stored %v, want [%d]", got, want)
		}
	}
}
