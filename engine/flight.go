package engine

import (
	"context"
	"fmt"
	"sync"

	"mtk/internal/recovered"
)

// flights run identical queries that arrive together once: the first caller's work serves every
// caller that asks for the same key before it ends (single flight). The work runs on a context
// of its own, canceled once every caller waiting for it has gone, so that one caller giving up
// does not fail the others; each caller still stops waiting when its own context ends. A panic
// in the work is its error (recovered), for every caller: it never ends the process.
type flights struct {
	mu sync.Mutex
	m  map[string]*flight
}

type flight struct {
	done    chan struct{}
	out     answered
	waiters int
	cancel  context.CancelFunc
}

// answered is what a query's work gives: the Compiled that answered (after its day spans), the
// attempt chosen and its rows. Callers share it and must not change it.
type answered struct {
	c      *Compiled
	res    *Result
	chosen Attempt
	err    error
	// left: the caller's context ended before the answer came (err says how).
	left bool
}

// do returns the work's answer for key, running work unless a flight of key is under way, and
// whether the answer was another caller's.
func (f *flights) do(ctx context.Context, key string, work func(context.Context) answered) (answered, bool) {
	f.mu.Lock()
	if f.m == nil {
		f.m = map[string]*flight{}
	}
	fl, joined := f.m[key]
	if !joined {
		wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		fl = &flight{done: make(chan struct{}), cancel: cancel}
		f.m[key] = fl
		go func() {
			fl.out = safely(wctx, work)
			f.mu.Lock()
			delete(f.m, key)
			f.mu.Unlock()
			cancel()
			close(fl.done)
		}()
	}
	fl.waiters++
	f.mu.Unlock()
	select {
	case <-fl.done:
		return fl.out, joined
	case <-ctx.Done():
		f.mu.Lock()
		if fl.waiters--; fl.waiters == 0 {
			fl.cancel()
		}
		f.mu.Unlock()
		return answered{err: mapError(ctx.Err()), left: true}, joined
	}
}

// safely runs work, a panic in it being its answer's error (500 internal_error): work runs on a
// goroutine of its own, where a panic would end the process.
func safely(ctx context.Context, work func(context.Context) answered) (out answered) {
	if err := recovered.Call(func() error { out = work(ctx); return nil }); err != nil {
		out = answered{err: fmt.Errorf("engine: query run: %w", err)}
	}
	return out
}
