package engine

import (
	"context"
	"sync/atomic"
	"time"
)

// Timing is how long a query's statements held ClickHouse (from taking a query slot to giving
// it back: sending, running and reading), summed over statements that may run side by side, for
// the Server-Timing header. Waiting for a slot is not counted. It also counts the statements.
type Timing struct {
	db atomic.Int64 // nanoseconds
	n  atomic.Int64
}

// DB is the statements' time so far.
func (t *Timing) DB() time.Duration { return time.Duration(t.db.Load()) }

// Statements is how many statements have run so far (each holds a slot once).
func (t *Timing) Statements() int { return int(t.n.Load()) }

type timingKey struct{}

// WithTiming returns ctx carrying t: the queries run with it add their statements' time to t.
func WithTiming(ctx context.Context, t *Timing) context.Context {
	return context.WithValue(ctx, timingKey{}, t)
}

// held wraps a slot's release so that the time the slot was held counts in ctx's Timing.
func held(ctx context.Context, release func()) func() {
	t, ok := ctx.Value(timingKey{}).(*Timing)
	if !ok {
		return release
	}
	t.n.Add(1)
	start := time.Now()
	return func() {
		t.db.Add(int64(time.Since(start)))
		release()
	}
}
