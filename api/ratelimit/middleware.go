package ratelimit

import (
	"log/slog"
	"math"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/clock"
	"mtk/platform"
)

// The response headers of the spec.
const (
	HeaderLimit     = "X-RateLimit-Limit"
	HeaderRemaining = "X-RateLimit-Remaining"
	HeaderReset     = "X-RateLimit-Reset"
)

// Config configures the middleware.
type Config struct {
	// Limiter counts requests; nil means a new in-process Memory.
	Limiter Limiter
	// Clock tells the time; nil means the wall clock.
	Clock clock.Clock
	// Enabled turns limiting on. When false (MTK_RATE_LIMITS=off) the middleware only calls the
	// next handler: no counting and no X-RateLimit headers.
	Enabled bool
	// Rejected, when set, tells a request whose credential was judged and refused: it counts
	// against the caller's IP but is never refused here, so that the client learns its key is
	// dead (401) instead of waiting out a window (credentials are judged before limits).
	Rejected func(*fiber.Ctx) bool
	// Log hears that the Limiter failed; nil means slog's default logger.
	Log *slog.Logger
	// Failed, when set, is called for each request let through because the Limiter failed (a
	// metric).
	Failed func()
}

// New returns the rate-limit middleware. It sets the X-RateLimit headers before calling the next
// handler, so error responses carry them too, and returns apperr.RateLimited (429, with
// Retry-After) when the caller's window is used up. Mount it after the principal is known.
func New(cfg Config) fiber.Handler {
	if !cfg.Enabled {
		return func(c *fiber.Ctx) error { return c.Next() }
	}
	if cfg.Limiter == nil {
		cfg.Limiter = NewMemory()
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.Real{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return func(c *fiber.Ctx) error {
		key, limit := counter(c)
		now := cfg.Clock.Now()
		d, err := cfg.Limiter.Take(c.UserContext(), key, limit, now)
		if err != nil {
			cfg.Log.Error("rate limit: limiter failed; request let through", "err", err.Error(),
				"request_id", c.GetRespHeader(fiber.HeaderXRequestID))
			if cfg.Failed != nil {
				cfg.Failed()
			}
			return c.Next()
		}
		c.Set(HeaderLimit, strconv.Itoa(d.Limit))
		c.Set(HeaderRemaining, strconv.Itoa(d.Remaining))
		c.Set(HeaderReset, strconv.FormatInt(d.Reset.Unix(), 10))
		if !d.Allowed && (cfg.Rejected == nil || !cfg.Rejected(c)) {
			return apperr.RateLimited(d.Limit, RetryAfter(d.Reset, now))
		}
		return c.Next()
	}
}

// counter is the identity a request counts against and its limit.
func counter(c *fiber.Ctx) (key string, limit int) {
	p := auth.From(c)
	if p == nil || p.Kind == auth.KindPublic {
		ip := c.IP()
		if p != nil && p.ClientIP != "" {
			ip = p.ClientIP
		}
		return "ip:" + ip, platform.RequestsPerMinute(platform.TierDefault)
	}
	return p.CounterKey(), platform.RequestsPerMinute(p.Tier)
}

// RetryAfter is the whole seconds from now until reset, at least 1: a Retry-After.
func RetryAfter(reset, now time.Time) int {
	return max(1, int(math.Ceil(reset.Sub(now).Seconds())))
}
