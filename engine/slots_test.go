package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/testenv"
)

func TestCoresOf(t *testing.T) {
	for v, want := range map[string]int{"2": 2, "16": 16, "'auto(8)'": 8, "auto(12)": 12, "auto": defaultSlots - 1, "": defaultSlots - 1, "0": defaultSlots - 1} {
		if got := coresOf(v); got != want {
			t.Errorf("coresOf(%q) = %d, want %d", v, got, want)
		}
	}
}

// Without MaxConcurrent, a Service takes the server's cores plus one slots.
func TestSlotsFollowTheServersCores(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	var v string
	if err := ch.Conn.QueryRow(ctx, "SELECT value FROM system.settings WHERE name = 'max_threads'").Scan(&v); err != nil {
		t.Fatal(err)
	}
	s := New(ch.Conn, Options{})
	if got, want := cap(s.slotsFor(ctx)), coresOf(v)+1; got != want {
		t.Fatalf("%d slots for max_threads %q, want %d", got, v, want)
	}
	if got := cap(New(ch.Conn, Options{MaxConcurrent: 7}).slotsFor(ctx)); got != 7 {
		t.Fatalf("MaxConcurrent 7: %d slots", got)
	}
}

// A statement waits while every slot is taken, runs when one frees, and gives up after
// MaxExecutionTime with a 503 (kind busy) or when its caller goes away.
func TestStatementsWaitForASlot(t *testing.T) {
	ch := testenv.ClickHouse(t)
	s := New(ch.Conn, Options{MaxConcurrent: 1, MaxExecutionTime: 300 * time.Millisecond})
	scope := Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "UTC"}
	in := QueryInput{ProjectID: "prj_1", Fields: []string{"clicks"}, Time: &TimeSpec{Start: "2024-03-01", End: "2024-03-07"}}
	ctx := context.Background()

	release, err := s.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := s.Query(ctx, scope, in); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("the query ran while the only slot was taken: %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if err := <-done; err != nil {
		t.Fatalf("after the slot freed: %v", err)
	}

	release, err = s.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	_, err = s.Query(ctx, scope, in)
	if e, ok := apperr.As(err); !ok || e.Status != 503 || errorKind(err) != ErrorBusy {
		t.Fatalf("waiting past MaxExecutionTime: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	gone := make(chan error, 1)
	go func() { _, err := s.Query(cctx, scope, in); gone <- err }()
	// The caller leaves once it waits in its flight (behind the slot held above).
	for deadline := time.Now().Add(5 * time.Second); flightWaiters(s) < 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("a caller gone while waiting: %v", err)
	}
}

// Identical queries that arrive together run once: 20 callers waiting behind a taken slot get
// one run's answer (19 of them shared), a different query runs on its own, and a caller that
// gives up leaves the others their answer.
func TestIdenticalQueriesShareOneRun(t *testing.T) {
	ch := testenv.ClickHouse(t)
	var mu sync.Mutex
	var shared, own int
	s := New(ch.Conn, Options{MaxConcurrent: 1, Observe: func(o Observation) {
		mu.Lock()
		defer mu.Unlock()
		if o.Shared {
			shared++
		} else {
			own++
		}
	}})
	scope := Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "UTC"}
	in := QueryInput{ProjectID: "prj_1", Fields: []string{"clicks"}, Time: &TimeSpec{Start: "2024-03-01", End: "2024-03-07", Granularity: "day"}}
	other := QueryInput{ProjectID: "prj_1", Fields: []string{"spend"}, Time: in.Time}
	ctx := context.Background()
	release, err := s.acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	results := make([]*Result, 20)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := s.Query(ctx, scope, in)
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		if _, err := s.Query(ctx, scope, other); err != nil {
			t.Error(err)
		}
	}()
	gone, cancel := context.WithCancel(ctx)
	quit := make(chan error, 1)
	go func() { _, err := s.Query(gone, scope, in); quit <- err }()
	for deadline := time.Now().Add(5 * time.Second); flightWaiters(s) < 22 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if n := flightWaiters(s); n != 22 || len(s.flights.m) != 2 {
		t.Fatalf("%d callers in %d flights, want 22 in 2", n, len(s.flights.m))
	}
	cancel()
	if err := <-quit; !errors.Is(err, context.Canceled) {
		t.Fatalf("the caller that gave up: %v", err)
	}
	release()
	wg.Wait()
	for _, r := range results {
		if r == nil || len(r.Data) != 7 || fmt.Sprint(r.Data) != fmt.Sprint(results[0].Data) {
			t.Fatalf("answers differ: %v and %v", r, results[0])
		}
	}
	if shared != 19+1 || own != 2 { // the 19 followers and the one that gave up; the two leaders
		t.Fatalf("%d shared and %d own runs, want 20 and 2", shared, own)
	}
}

// flightWaiters counts the callers waiting on s's query flights.
func flightWaiters(s *Service) int {
	s.flights.mu.Lock()
	defer s.flights.mu.Unlock()
	n := 0
	for _, f := range s.flights.m {
		n += f.waiters
	}
	return n
}
