package runner

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// lockedBuffer is a log's output, written by the runner's goroutines and read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// lines are the logged lines that hold every one of parts.
func (b *lockedBuffer) lines(parts ...string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, l := range strings.Split(b.buf.String(), "\n") {
		all := l != ""
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			out = append(out, l)
		}
	}
	return out
}

func newLogged() (*Runner, *lockedBuffer) {
	logs := &lockedBuffer{}
	return New(slog.New(slog.NewJSONHandler(logs, nil))), logs
}

// within fails the test unless ch is closed or sent on within a minute.
func within(t *testing.T, what string, ch <-chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s: not within a minute", what)
	}
}

// A step that panics is recovered and logged once, with its cause and stack, and runs again at
// the next tick; another piece goes on meanwhile.
func TestPanickingStepRunsAgainNextCycle(t *testing.T) {
	r, logs := newLogged()
	defer r.Close()
	var calls atomic.Int64
	again := make(chan struct{})
	err := r.Every("buggy", time.Millisecond, func(context.Context) error {
		switch calls.Add(1) {
		case 1:
			panic("injected bug")
		case 2:
			close(again)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var others atomic.Int64
	othersRan := make(chan struct{})
	if err := r.Every("healthy", time.Millisecond, func(context.Context) error {
		if others.Add(1) == 3 {
			close(othersRan)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	within(t, "the step after the panic", again)
	within(t, "the other piece's runs", othersRan)
	r.Close()
	got := logs.lines(`"msg":"`+FailedMsg+`"`, `"work":"buggy"`)
	if len(got) != 1 {
		t.Fatalf("%d lines logged for one panic, want 1:\n%s", len(got), strings.Join(got, "\n"))
	}
	if !strings.Contains(got[0], "panic: injected bug") || !strings.Contains(got[0], "goroutine") {
		t.Fatalf("the line does not name the panic and its stack: %s", got[0])
	}
	if n := len(logs.lines(`"work":"healthy"`)); n != 0 {
		t.Fatalf("the healthy piece logged %d failures", n)
	}
}

// A piece registered with Go that fails or panics is logged and started again; one that returns
// nil is done.
func TestServiceRestartsAfterFailure(t *testing.T) {
	r, logs := newLogged()
	defer r.Close()
	var calls atomic.Int64
	third := make(chan struct{})
	err := r.Go("listener", func(ctx context.Context) error {
		switch calls.Add(1) {
		case 1:
			return errors.New("connection lost")
		case 2:
			panic("listener bug")
		}
		close(third)
		<-ctx.Done()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "the third start", third)
	r.Close()
	if n := len(logs.lines(`"work":"listener"`, "connection lost")); n != 1 {
		t.Errorf("the error logged %d times, want 1", n)
	}
	if n := len(logs.lines(`"work":"listener"`, "panic: listener bug")); n != 1 {
		t.Errorf("the panic logged %d times, want 1", n)
	}
	if calls.Load() != 3 {
		t.Errorf("%d starts after Close, want 3", calls.Load())
	}
}

// Close returns only once a piece blocked in its work has seen its context end and returned; it
// may be called twice, and nothing registers after it.
func TestCloseWaitsForWorkInProgress(t *testing.T) {
	r, _ := newLogged()
	inWork := make(chan struct{})
	var finished atomic.Bool
	err := r.Every("slow", time.Hour, func(ctx context.Context) error {
		close(inWork)
		<-ctx.Done() // a step in the middle of a batch, cut short by Close
		finished.Store(true)
		return ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	within(t, "the step's start", inWork)
	r.Close()
	if !finished.Load() {
		t.Fatal("Close returned before the step in progress")
	}
	r.Close()
	if err := r.Go("late", func(context.Context) error { return nil }); !errors.Is(err, ErrClosed) {
		t.Fatalf("registering after Close: %v, want ErrClosed", err)
	}
}

// A name is registered once.
func TestNameRegisteredOnce(t *testing.T) {
	r, _ := newLogged()
	defer r.Close()
	noop := func(ctx context.Context) error { <-ctx.Done(); return nil }
	if err := r.Go("twice", noop); err != nil {
		t.Fatal(err)
	}
	if err := r.Go("twice", noop); err == nil {
		t.Fatal("a name registered twice is accepted")
	}
}
