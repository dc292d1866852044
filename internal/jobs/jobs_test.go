package jobs

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRunNowRecoversAndSerialises(t *testing.T) {
	release := make(chan struct{})
	var runs atomic.Int32
	r, err := New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), []Job{
		{Name: "panics", Schedule: "@every 1h", Run: func(context.Context) error { panic("boom") }},
		{Name: "slow", Schedule: "@every 1h", Run: func(context.Context) error { runs.Add(1); <-release; return nil }},
		{Name: "fails", Schedule: "@every 1h", Run: func(context.Context) error { return errors.New("nope") }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunNow("panics"); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("panic not turned into an error: %v", err)
	}
	if err := r.RunNow("fails"); err == nil || err.Error() != "nope" {
		t.Fatalf("error not returned: %v", err)
	}
	done := make(chan error)
	go func() { done <- r.RunNow("slow") }()
	for runs.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := r.RunNow("slow"); !errors.Is(err, ErrRunning) {
		t.Fatalf("second concurrent run: %v, want ErrRunning", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 {
		t.Fatalf("slow ran %d times", runs.Load())
	}
	if err := r.RunNow("missing"); err == nil {
		t.Fatal("unknown job ran")
	}
}

func TestBadDeclarations(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	noop := func(context.Context) error { return nil }
	if _, err := New(context.Background(), log, []Job{{Name: "a", Schedule: "never", Run: noop}}); err == nil {
		t.Fatal("bad schedule accepted")
	}
	if _, err := New(context.Background(), log, []Job{{Name: "a", Schedule: "@every 1m", Run: noop}, {Name: "a", Schedule: "@every 1m", Run: noop}}); err == nil {
		t.Fatal("duplicate name accepted")
	}
}

func TestRunsHaveADeadline(t *testing.T) {
	r, err := New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), []Job{
		{Name: "hangs", Schedule: "@every 1h", Timeout: 50 * time.Millisecond,
			Run: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }},
		{Name: "default", Schedule: "@every 1h", Run: func(ctx context.Context) error {
			if d, ok := ctx.Deadline(); !ok || time.Until(d) > DefaultTimeout {
				return errors.New("no deadline, or a later one than DefaultTimeout")
			}
			return nil
		}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.RunNow("hangs"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a run past its Timeout: %v, want its context's deadline", err)
	}
	if err := r.RunNow("default"); err != nil {
		t.Fatal(err)
	}
}
