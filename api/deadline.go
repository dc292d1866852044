package api

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/api/idempotency"
)

// withStoreDeadline ends every request's context timeout after the request began (the
// configuration's StoreTimeout). Every store call takes that context, so none outlives it: a
// PostgreSQL or ClickHouse that stops answering fails the call with the context's deadline,
// which the error handler answers 503 with Retry-After (db.Unavailable), whatever the route,
// instead of leaving the client waiting as long as the store does.
//
// The deadline's timer is armed only when something waits on the context (lazyDeadline): a
// request served from memory, an answer cache hit, arms none (a runtime timer set and stopped
// was 3 % of a hit's CPU).
func withStoreDeadline(timeout time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx := &lazyDeadline{Context: c.UserContext(), deadline: requestStart(c).Add(timeout)}
		defer ctx.release()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// lazyDeadline is its parent with a deadline, as context.WithDeadline makes it, except that the
// context.WithDeadline it stands for is made at the first call of Done or Err: Deadline and
// Value need none. release ends it as WithDeadline's cancel does. Once made, Value reads
// through it, so that a context derived from this one finds its cancellation as it would
// WithDeadline's (no goroutine to propagate it).
type lazyDeadline struct {
	context.Context
	deadline time.Time
	once     sync.Once
	made     atomic.Bool // ctx is the WithDeadline made by armed
	ctx      context.Context
	cancel   context.CancelFunc
}

// released is the context of a lazyDeadline released before anything waited on it: cancelled.
var released = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()

func (c *lazyDeadline) armed() context.Context {
	c.once.Do(func() {
		c.ctx, c.cancel = context.WithDeadline(c.Context, c.deadline)
		c.made.Store(true)
	})
	return c.ctx
}

func (c *lazyDeadline) Value(key any) any {
	if c.made.Load() {
		return c.ctx.Value(key)
	}
	return c.Context.Value(key)
}

func (c *lazyDeadline) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *lazyDeadline) Done() <-chan struct{}       { return c.armed().Done() }
func (c *lazyDeadline) Err() error                  { return c.armed().Err() }

func (c *lazyDeadline) release() {
	// Released unmade, it is cancelled; Value still reads the parent's values.
	c.once.Do(func() { c.ctx = released })
	if c.cancel != nil {
		c.cancel()
	}
}

// idempotent is the Idempotency-Key middleware over the platform's PostgreSQL, its records
// settled within the store timeout; scope nil scopes keys to the credential.
func (s *server) idempotent(scope func(*fiber.Ctx) (string, error)) fiber.Handler {
	return idempotency.New(idempotency.Config{Store: s.Idempotency, Clock: s.Clock,
		Scope: scope, StoreTimeout: s.Config.StoreDeadline()})
}
