package ratelimit

import (
	"context"
	"time"
)

// Failures limits attempts that can fail, such as passwords tried for one login e-mail: at most
// a limit of attempts within any sliding window of a fixed length, counting every attempt not
// known to have succeeded. It is the model for guessing limits as Limiter is for request rates:
// a shared store can implement it (Redis: one sorted set of attempt times per key, trimmed to the
// window, in a script; Clear is DEL), and Memory's sibling MemoryFailures is the in-process one.
//
// An attempt is reserved before it is judged and counts as a failure until Clear, so that
// concurrent guesses cannot all pass the check before the first failure is recorded.
// Implementations must be safe for concurrent use.
type Failures interface {
	// Attempt reserves one attempt for key at now, or refuses it when key already has the limit
	// of attempts within the window that ends at now. A refused attempt is not counted.
	Attempt(ctx context.Context, key string, now time.Time) (AttemptDecision, error)
	// Clear forgets key's attempts: the last one succeeded.
	Clear(ctx context.Context, key string) error
}

// AttemptDecision is a Failures' answer for one attempt.
type AttemptDecision struct {
	Allowed bool
	// RetryAt, when refused, is when the oldest counted attempt leaves the window, and so when an
	// attempt will next be allowed.
	RetryAt time.Time
}
