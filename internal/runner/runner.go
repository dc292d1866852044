// Package runner is the one registry of mtk's long-running work, after Grafana's
// BackgroundService registry (pkg/registry): the outbox drainers, the credit worker, the
// conversion forwarder, the PostgreSQL listener and the job scheduler are each registered by name
// and started at once. A run that panics is recovered (internal/recovered) and, as a failed run,
// logged once with its cause and its name; the work goes on at its next cycle, the rest of the
// process untouched. Close cancels everything registered and returns once every goroutine the
// runner started has ended, so that nothing outlives the stores it uses.
//
// The cron jobs keep their own package (internal/jobs: schedules, jitter, ticks claimed across
// workers, RunNow); their scheduler is one piece registered here.
package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"mtk/internal/recovered"
)

// RestartDelay is how long a piece registered with Go waits before it is started again after
// it failed or panicked: a bug that fails at once must not spin.
const RestartDelay = time.Second

// FailedMsg is the message of the one log line of a failed or panicking run.
const FailedMsg = "background work failed"

// ErrClosed is returned by a registration after Close.
var ErrClosed = errors.New("runner: closed")

// Runner starts and stops the long-running work of one process. Its zero value is not usable:
// New makes one.
type Runner struct {
	log    *slog.Logger
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu     sync.Mutex
	names  map[string]bool
	closed bool
}

// New returns a runner that logs failed runs to log (nil: discarded).
func New(log *slog.Logger) *Runner {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Runner{log: log, ctx: ctx, cancel: cancel, names: map[string]bool{}}
}

// Go registers a piece that runs until its context ends (a listener, a scheduler) and starts it.
// When it returns earlier with an error, or panics, the failure is logged and it is started again
// RestartDelay later; when it returns nil it is done.
func (r *Runner) Go(name string, run func(ctx context.Context) error) error {
	return r.start(name, func(ctx context.Context) {
		for {
			err := recovered.Call(func() error { return run(ctx) })
			if err == nil || ctx.Err() != nil {
				return
			}
			r.failed(name, err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(RestartDelay):
			}
		}
	})
}

// Every registers a step run every interval until Close, the first at once, and starts it. A
// step does all the work waiting (a drainer's RunOnce loops over full batches), so the next one
// starts at the next tick, never at once: between two steps, rows gather into one larger insert.
// A step that fails or panics is logged, and the next tick runs it again.
func (r *Runner) Every(name string, interval time.Duration, step func(ctx context.Context) error) error {
	return r.start(name, func(ctx context.Context) {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			if err := recovered.Call(func() error { return step(ctx) }); err != nil && ctx.Err() == nil {
				r.failed(name, err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// start runs loop in a goroutine of its own under name, unless the name is taken or r is closed.
func (r *Runner) start(name string, loop func(ctx context.Context)) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return fmt.Errorf("%w: %s not started", ErrClosed, name)
	}
	if r.names[name] {
		return fmt.Errorf("runner: %q registered twice", name)
	}
	r.names[name] = true
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		loop(r.ctx)
	}()
	return nil
}

// failed logs a run's failure once: a *recovered.Panic's text holds the panic's value and stack.
func (r *Runner) failed(name string, err error) {
	r.log.Error(FailedMsg, "work", name, "error", err.Error())
}

// Close cancels every piece registered and waits for all of them to return (a step in progress
// sees its context end and finishes first). It is safe to call more than once, and at the same
// time from several goroutines.
func (r *Runner) Close() {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
}
