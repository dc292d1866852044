package idempotency

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/internal/config"
)

// Config configures the middleware.
type Config struct {
	// Store keeps the records. Required.
	Store *Store
	// Clock tells the time; nil means the wall clock.
	Clock clock.Clock
	// Scope names the owner of a request's keys; nil means DefaultScope. An error it returns is
	// the request's answer.
	Scope func(c *fiber.Ctx) (string, error)
	// Lease is how long a running call holds its key unless renewed (0: Lease). It renews every
	// third of it.
	Lease time.Duration
	// StoreTimeout bounds storing or removing a record once the handler has answered
	// (0: config.DefaultStoreTimeout).
	StoreTimeout time.Duration
}

// Validate reports a missing Store.
func (cfg Config) Validate() error {
	if cfg.Store == nil {
		return errors.New("idempotency: Config.Store is required")
	}
	return nil
}

// DefaultScope scopes keys to the request's credential: key:<key id> for an API key,
// user:<user id>:<workspace id> for a JWT. It fails for a request without one: public routes
// pass their own Scope (see ContainerScope).
func DefaultScope(c *fiber.Ctx) (string, error) {
	p := auth.From(c)
	if p == nil || p.Kind == auth.KindPublic {
		return "", errors.New("idempotency: no credential to scope the key; public routes need Config.Scope")
	}
	return p.CounterKey(), nil
}

// ContainerScope is the scope of public calls to a tracking container.
func ContainerScope(containerID string) string { return "container:" + containerID }

// New returns the idempotency middleware. It panics if cfg is invalid.
func New(cfg Config) fiber.Handler {
	if err := cfg.Validate(); err != nil {
		panic(err)
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Scope == nil {
		cfg.Scope = DefaultScope
	}
	if cfg.Lease <= 0 {
		cfg.Lease = Lease
	}
	if cfg.StoreTimeout <= 0 {
		cfg.StoreTimeout = config.DefaultStoreTimeout
	}
	return func(c *fiber.Ctx) error {
		values := c.Request().Header.PeekAll(HeaderKey)
		if len(values) == 0 || !writeMethod(c.Method()) {
			return c.Next()
		}
		key, err := keyValue(values)
		if err != nil {
			return err
		}
		scope, err := cfg.Scope(c)
		if err != nil {
			return err
		}
		hash := sha256.Sum256(c.Body())
		req := Request{Scope: scope, Key: key, Method: c.Method(), Path: c.OriginalURL(), BodyHash: hash[:]}
		claimed := time.Now()
		claim, err := cfg.Store.Begin(c.UserContext(), req, cfg.Clock.Now(), cfg.Lease)
		if err != nil {
			return err
		}
		switch claim.Outcome {
		case Replay:
			return replay(c, claim.Response)
		case Mismatch:
			return apperr.Conflict(apperr.CodeIdempotencyConflict,
				"This Idempotency-Key was already used with another request (method, path or body).")
		case InProgress:
			e := apperr.Conflict(apperr.CodeIdempotencyConflict,
				"A request with this Idempotency-Key is still being processed.")
			e.RetryAfter = seconds(claim.LeaseLeft)
			return e
		}
		c.Locals(requestLocal, req)
		receipt := NewReceipt(claim, c.GetRespHeader(fiber.HeaderXRequestID), c.App().Config().JSONEncoder)
		c.Locals(receiptLocal, receipt)
		return run(c, cfg, receipt, claimed)
	}
}

// seconds is d in whole seconds, rounded up, at least 1: a Retry-After.
func seconds(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}

// requestLocal is where a request that runs as its key's first call finds its Request.
const requestLocal = "mtk.idempotency_request"

// RequestOf is the idempotent request being run (scope and key), false without a key. A handler
// that makes an id derives it from them, so that a retry after a crash (the record never
// finished, the work done) makes the same id and finds the work.
func RequestOf(c *fiber.Ctx) (Request, bool) {
	r, ok := c.Locals(requestLocal).(Request)
	return r, ok
}

func writeMethod(m string) bool {
	switch m {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch, fiber.MethodDelete:
		return true
	}
	return false
}

func replay(c *fiber.Ctx, r Response) error {
	c.Status(r.Status)
	if r.ContentType != "" {
		c.Set(fiber.HeaderContentType, r.ContentType)
	}
	if r.RequestID != "" {
		c.Set(HeaderOriginalRequest, r.RequestID)
	}
	c.Set(HeaderReplayed, "true")
	return c.Send(r.Body)
}

// run calls the rest of the chain as the key's first call, holding the claim's lease (claimed
// when Begin was sent) until the record is settled, and stores its answer. The chain runs under
// a context that ends when the lease does (a call that lost its key is answered 503, since a
// repeat may be running it again) and a third of a lease (at most a quarter of what is left)
// before the request's own deadline, which leaves the removal of a failed call's record that
// long. An error of the chain is
// rendered here, by the app's error handler, so that the stored answer is the one the client
// gets; run then returns nil.
func run(c *fiber.Ctx, cfg Config, receipt *Receipt, claimed time.Time) error {
	store, claim := cfg.Store, receipt.claim
	outer := c.UserContext()
	held, release := hold(outer, store, claim, cfg.Clock, cfg.Lease, claimed)
	work, stop := held, context.CancelFunc(func() {})
	if deadline, ok := outer.Deadline(); ok {
		work, stop = context.WithDeadline(held, deadline.Add(-min(cfg.Lease/3, time.Until(deadline)/4)))
	}
	c.SetUserContext(work)
	defer func() {
		stop()
		release()
		c.SetUserContext(outer)
	}()
	defer func() {
		if p := recover(); p != nil {
			abandon(c, outer, cfg, claim, release)
			panic(p)
		}
	}()
	err := c.Next()
	if err != nil && errors.Is(context.Cause(held), errLeaseLost) {
		err = apperr.Unavailable("This request's Idempotency-Key could not be held while it ran; retry shortly.",
			seconds(cfg.Lease)).WithCause(fmt.Errorf("%w: %w", context.Cause(held), err))
	}
	if err != nil {
		if err := c.App().ErrorHandler(c, err); err != nil {
			// What Fiber itself does when the error handler fails.
			_ = c.SendStatus(fiber.StatusInternalServerError)
		}
	}
	resp := c.Response()
	if receipt.answered.Load() {
		return nil // finished in the handler's transaction
	}
	if resp.StatusCode() >= fiber.StatusInternalServerError {
		abandon(c, outer, cfg, claim, release)
		return nil
	}
	answer := Response{
		Status: resp.StatusCode(), ContentType: string(resp.Header.ContentType()), Body: resp.Body(),
		RequestID: c.GetRespHeader(fiber.HeaderXRequestID),
	}
	// The work is done: its answer is stored even past the request's deadline.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(outer), cfg.StoreTimeout)
	defer cancel()
	settle(c, ctx, func(ctx context.Context) error { return store.Finish(ctx, claim, answer) })
	return nil
}

// abandon removes the record of a call that failed, so that its retry runs at once. The lease
// is released first, and the removal given at most a third of the lease, within the request's
// deadline: a store that does not answer delays the failure's answer by no more, and the key
// is free all the same once the lease ends, before any Retry-After of the failure has passed.
func abandon(c *fiber.Ctx, outer context.Context, cfg Config, claim Claim, release func()) {
	release()
	ctx, cancel := context.WithTimeout(outer, cfg.Lease/3)
	defer cancel()
	settle(c, ctx, func(ctx context.Context) error { return cfg.Store.Abandon(ctx, claim) })
}

// settle stores or removes the record once the handler has answered, under ctx. A failure is
// logged and the client still gets the handler's answer: its effects happened, so answering
// with an error would invite a second run. A record left running frees itself once its lease
// ends, at most Lease after the last renewal.
func settle(c *fiber.Ctx, ctx context.Context, update func(context.Context) error) {
	if err := update(ctx); err != nil {
		slog.Error("idempotency: record not updated", "err", err,
			"request_id", c.GetRespHeader(fiber.HeaderXRequestID))
	}
}
