package api

import (
	"fmt"
	"log/slog"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/ids"
)

const requestIDKey = "mtk.request_id"

// saneRequestID is what a client-sent X-Request-Id must look like to be echoed.
var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`)

// withRequestID gives every request an id: the client's X-Request-Id when it is a sane token,
// else a new one. Every response carries it.
func withRequestID(c *fiber.Ctx) error {
	requestID(c)
	return c.Next()
}

// requestID returns the request's id, assigning it (and the response header) on first use.
func requestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(requestIDKey).(string); ok {
		return id
	}
	id := c.Get(fiber.HeaderXRequestID)
	if !saneRequestID.MatchString(id) {
		id = newRequestID()
	}
	setRequestID(c, id)
	return id
}

// newRequestID makes a request id of the server's own.
func newRequestID() string { return "req_" + ids.Random(12) }

// setRequestID gives the request its id, and the response the header.
func setRequestID(c *fiber.Ctx, id string) {
	c.Locals(requestIDKey, id)
	c.Set(fiber.HeaderXRequestID, id)
}

// logRequests renders a failed chain's error itself, so that the log line carries the status the
// client got, and writes one structured line per request.
func logRequests(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		attrs := []any{
			"method", c.Method(),
			"route", c.Route().Path,
			"status", c.Response().StatusCode(),
			"duration_ms", float64(time.Since(start).Microseconds()) / 1000,
			"request_id", requestID(c),
		}
		if p := auth.From(c); p != nil && p.WorkspaceID != "" {
			attrs = append(attrs, "workspace", p.WorkspaceID)
		}
		log.Info("request", attrs...)
		return nil
	}
}

// recoverPanics turns a panic into a 500 internal_error whose cause holds the panic and its
// stack, which the error renderer logs with the request id.
func recoverPanics() fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = apperr.Internal().WithCause(fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
			}
		}()
		return c.Next()
	}
}
