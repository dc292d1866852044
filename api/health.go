package api

import (
	"context"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// pingTimeout bounds each store's answer to /readyz.
const pingTimeout = 2 * time.Second

// healthz answers while the process runs.
func (s *server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 when both stores answer, 503 otherwise. The stores are asked at once, each
// with its own timeout, so that one that hangs does not make the other look down. The pools
// replace broken connections by themselves, so /readyz is 200 again as soon as a store returns.
func (s *server) readyz(c *fiber.Ctx) error {
	ctx := c.UserContext()
	var pgErr, chErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); pgErr = ping(ctx, s.Postgres.Ping) }()
	go func() { defer wg.Done(); chErr = ping(ctx, s.ClickHouse.Ping) }()
	wg.Wait()
	status := fiber.Map{"status": "ready", "postgres": "ok", "clickhouse": "ok"}
	code := fiber.StatusOK
	if pgErr != nil {
		status["postgres"], status["status"], code = "unavailable", "unavailable", fiber.StatusServiceUnavailable
	}
	if chErr != nil {
		status["clickhouse"], status["status"], code = "unavailable", "unavailable", fiber.StatusServiceUnavailable
	}
	return c.Status(code).JSON(status)
}

// ping calls f and waits for it at most pingTimeout: clickhouse-go's handshake with a server
// that accepts the connection but never answers waits its own dial timeout, whatever ctx says.
func ping(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
