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
	"mtk/internal/jsonlog"
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
	// The text on the stack (96 bits are 20 base32 digits): the string is the one allocation.
	var text [len(requestIDPrefix) + 20]byte
	return string(ids.AppendText(append(text[:0], requestIDPrefix...), b[:]))
}

const requestIDPrefix = "req_"

// setRequestID gives the request its id, and the response the header.
func setRequestID(c *fiber.Ctx, id string) {
	c.Locals(requestIDKey, id)
	c.Set(fiber.HeaderXRequestID, id)
}

// requestStart is when the request began: the time fasthttp's server took as it called the
// handler (RequestCtx.Time), which the log line, the metrics, the store deadline and the
// Server-Timing total share instead of reading the clock each (a clock reading is ~80 ns under
// kvm-clock, a cache hit read it seven times). A context not served by a fasthttp server (one
// made by hand, as the in-memory benchmark does) has no such time: then now.
func requestStart(c *fiber.Ctx) time.Time {
	if t := c.Context().Time(); !t.IsZero() {
		return t
	}
	return time.Now()
}

// logRequests renders a failed chain's error itself, so that the log line carries the status the
// client got, and writes one structured line per request.
func logRequests(log *slog.Logger) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := requestStart(c)
		if err := c.Next(); err != nil {
			if herr := c.App().ErrorHandler(c, err); herr != nil {
				return herr
			}
		}
		// One clock reading for the line's time and its duration.
		end := time.Now()
		// Typed attributes in an array on the stack: the line costs no boxing of its values.
		attrs := [6]slog.Attr{
			slog.String("method", c.Method()),
			slog.String("route", c.Route().Path),
			slog.Int("status", c.Response().StatusCode()),
			slog.Float64("duration_ms", float64(end.Sub(start).Microseconds())/1000),
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
			// jsonlog's handler takes the attributes as they are: a slog.Record keeps five inline
			// and allocates for more (the line has six), and a call through an interface would
			// move the array to the heap.
			if jh, ok := h.(*jsonlog.Handler); ok {
				_ = jh.HandleAttrs(end, slog.LevelInfo, "request", attrs[:n])
				return nil
			}
			r := slog.NewRecord(end, slog.LevelInfo, "request", 0)
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
