package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
)

// healthz answers while the process runs.
func (s *server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 when both stores answer, 503 otherwise.
func (s *server) readyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	status := fiber.Map{"status": "ready", "postgres": "ok", "clickhouse": "ok"}
	code := fiber.StatusOK
	if err := s.platform.Pool().Ping(ctx); err != nil {
		status["postgres"], status["status"], code = "unavailable", "unavailable", fiber.StatusServiceUnavailable
	}
	if err := s.ch.Ping(ctx); err != nil {
		status["clickhouse"], status["status"], code = "unavailable", "unavailable", fiber.StatusServiceUnavailable
	}
	return c.Status(code).JSON(status)
}
