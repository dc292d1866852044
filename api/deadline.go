package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/api/idempotency"
)

// withStoreDeadline ends every request's context timeout after the request began (the
// configuration's StoreTimeout). Every store call takes that context, so none outlives it: a
// PostgreSQL or ClickHouse that stops answering fails the call with the context's deadline,
// which the error handler answers 503 with Retry-After (db.Unavailable), whatever the route,
// instead of leaving the client waiting as long as the store does.
func withStoreDeadline(timeout time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), timeout)
		defer cancel()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// idempotent is the Idempotency-Key middleware over the platform's PostgreSQL, its records
// settled within the store timeout; scope nil scopes keys to the credential.
func (s *server) idempotent(scope func(*fiber.Ctx) (string, error)) fiber.Handler {
	return idempotency.New(idempotency.Config{Store: s.Idempotency, Clock: s.Clock,
		Scope: scope, StoreTimeout: s.Config.StoreDeadline()})
}
