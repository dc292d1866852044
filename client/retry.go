package client

import (
	"context"
	crand "crypto/rand"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The backoff between attempts when the answer says nothing: a wait drawn between half and all
// of baseBackoff doubled per retry, at most maxBackoff.
const (
	baseBackoff = 500 * time.Millisecond
	maxBackoff  = 8 * time.Second
	// maxRetryAfter is the longest Retry-After waited for; a longer one ends the call with its
	// error.
	maxRetryAfter = 2 * time.Minute
)

// retryable says whether an attempt that ended with status (0: no answer) may be sent again:
// a 429 always (the API did nothing), a 503 or a failed connection when the request is safe to
// repeat.
func retryable(status int, safe bool) bool {
	switch status {
	case http.StatusTooManyRequests:
		return true
	case 0, http.StatusServiceUnavailable:
		return safe
	}
	return false
}

// wait is how long to wait before retry number attempt+1 after err, and false when the call
// should end now: a Retry-After beyond maxRetryAfter, or a wait that would outlast ctx's
// deadline.
func (c *Client) wait(ctx context.Context, err error, attempt int) (time.Duration, bool) {
	var d time.Duration
	if e, ok := AsError(err); ok && e.RetryAfter > 0 {
		if e.RetryAfter > maxRetryAfter {
			return 0, false
		}
		d = e.RetryAfter
	} else {
		d = backoff(attempt)
	}
	if deadline, ok := ctx.Deadline(); ok && c.clock.Now().Add(d).After(deadline) {
		return 0, false
	}
	return d, true
}

// backoff is the wait before retry number attempt+1 when the answer gives none.
func backoff(attempt int) time.Duration {
	d := maxBackoff
	if attempt < 10 {
		d = min(maxBackoff, baseBackoff<<attempt)
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter reads a Retry-After header: seconds, or an HTTP date. 0 when absent or unreadable.
func (c *Client) retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		return time.Duration(max(0, s)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, t.Sub(c.clock.Now()))
	}
	return 0
}

// newIdempotencyKey is a random key: "mtk-go-" and 128 random bits in base 32.
func newIdempotencyKey() string { return "mtk-go-" + crand.Text() }
