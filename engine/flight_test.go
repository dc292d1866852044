package engine

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A panic in a flight's work is the error of every caller waiting for it, the first and those
// that joined, and the next call of the key runs afresh: it never ends the process.
func TestFlightPanicIsEveryCallersError(t *testing.T) {
	var f flights
	ctx := context.Background()
	started, release := make(chan struct{}), make(chan struct{})
	errs := make(chan error, 2)
	go func() {
		out, _ := f.do(ctx, "k", func(context.Context) answered {
			close(started)
			<-release
			panic("injected: a bug in a query's run")
		})
		errs <- out.err
	}()
	<-started
	go func() {
		out, _ := f.do(ctx, "k", func(context.Context) answered { t.Error("a joined caller ran the work"); return answered{} })
		errs <- out.err
	}()
	waiters := func() int {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.m["k"].waiters
	}
	for deadline := time.Now().Add(5 * time.Second); waiters() < 2 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if n := waiters(); n != 2 {
		t.Fatalf("%d callers wait for the flight, want 2", n)
	}
	close(release)
	for range 2 {
		if err := <-errs; err == nil || !strings.Contains(err.Error(), "panic: injected") {
			t.Fatalf("a caller's error: %v", err)
		}
	}
	if out, joined := f.do(ctx, "k", func(context.Context) answered { return answered{} }); out.err != nil || joined {
		t.Fatalf("the next call: %v, joined %v", out.err, joined)
	}
}
