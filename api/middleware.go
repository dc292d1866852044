package api

import (
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"math/rand/v2"
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

// newRequestID makes a request id of the server's own: 96 random bits from math/rand/v2's
// generator (ChaCha8, seeded from the system's randomness), which costs no system call as
// crypto/rand may; a request id names a request, it guards nothing.
func newRequestID() string {
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], rand.Uint64())
	binary.LittleEndian.PutUint32(b[8:], rand.Uint32())
	return "req_" + ids.Text(b[:])
}

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
		// Typed attributes in an array on the stack: the line costs no boxing of its values.
		attrs := [6]slog.Attr{
			slog.String("method", c.Method()),
			slog.String("route", c.Route().Path),
			slog.Int("status", c.Response().StatusCode()),
			slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
			slog.String("request_id", requestID(c)),
		}
		n := 5
		if p := auth.From(c); p != nil && p.WorkspaceID != "" {
			attrs[n] = slog.String("workspace", p.WorkspaceID)
			n++
		}
		// The handler directly, with no caller's PC: Logger.LogAttrs walks the stack for one
		// (runtime.Callers, 2 % of a cache hit), which the request log never prints.
		if h := log.Handler(); h.Enabled(context.Background(), slog.LevelInfo) {
			r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
			r.AddAttrs(attrs[:n]...)
			_ = h.Handle(context.Background(), r) // as LogAttrs does: a log that fails fails alone
		}
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
