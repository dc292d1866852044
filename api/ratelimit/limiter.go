// Package ratelimit enforces the per-tier request limits of the contract on /v3/ routes, and
// holds Failures, the limit on guesses (passwords tried per login e-mail).
//
// Windows are fixed and aligned to the minute: every window starts at a Unix minute (now
// truncated to 60 s) and X-RateLimit-Reset is the Unix time of the next minute. Aligned windows
// need no per-key start time, so a shared store (Redis: INCR of a counter named for the window)
// implements Limiter with the same answers as the in-process Memory.
//
// A request counts against its principal's auth.Principal.CounterKey (the API key, the user in a
// workspace for a JWT) at the workspace tier's limit. A request without a principal (a public
// call, or one whose credentials failed) counts against its client IP at the default tier. So that
// failed authentications are limited too (credential stuffing), mount authentication as
// identify -> rate limit -> require: the identifying step sets the principal when the credential
// is good and leaves it nil otherwise, and only the later step answers 401.
//
// When the Limiter fails, the request is let through without X-RateLimit headers (fail open):
// a limiter outage must not take the API down.
package ratelimit

import (
	"context"
	"time"
)

// Window is the length of a rate-limit window.
const Window = 60 * time.Second

// Decision is a Limiter's answer for one request.
type Decision struct {
	Allowed   bool
	Limit     int       // the maximum in the window
	Remaining int       // requests left in the window after this one
	Reset     time.Time // when the window ends
}

// Limiter counts requests per key in fixed windows. Take counts one request for key at now and
// reports whether it is within limit. Implementations must be safe for concurrent use.
type Limiter interface {
	Take(ctx context.Context, key string, limit int, now time.Time) (Decision, error)
}

// windowStart is the start of the aligned window that holds now.
func windowStart(now time.Time) time.Time { return now.Truncate(Window) }
