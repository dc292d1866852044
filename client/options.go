package client

import (
	"context"
	"net/http"
	"time"
)

// Option configures a Client.
type Option func(*Client)

// WithAPIKey authenticates with an API key (mtk_live_…), sent as Authorization: Bearer.
func WithAPIKey(key string) Option {
	return func(c *Client) { c.token, c.workspaceID = key, "" }
}

// WithJWT authenticates as a user with the token of Login. workspaceID is sent as
// X-Workspace-Id, which the data routes (query, fields, objects, tracking) need with a JWT; it
// may be empty for the platform listings, which then span every workspace of the user.
func WithJWT(token, workspaceID string) Option {
	return func(c *Client) { c.token, c.workspaceID = token, workspaceID }
}

// WithHTTPClient sends requests through hc instead of the default client (80 s timeout, up to
// 128 idle connections kept per host).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.http = hc }
}

// WithUserAgent replaces the User-Agent header (default "mtk-go/<version>").
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua }
}

// WithMaxRetries sets how many times a call is sent again after a retryable failure (default 2).
// 0 turns retries off, and with them the generated idempotency keys: benchmarks and callers that
// retry on their own want that.
func WithMaxRetries(n int) Option {
	return func(c *Client) { c.maxRetries = max(0, n) }
}

// Clock is the client's source of time: Now reads Retry-After dates and deadlines, Sleep waits
// between attempts and must return ctx.Err() early when ctx is done. Tests pass a fake one to
// observe the waits without waiting.
type Clock interface {
	Now() time.Time
	Sleep(ctx context.Context, d time.Duration) error
}

// WithClock replaces the wall clock.
func WithClock(clk Clock) Option {
	return func(c *Client) { c.clock = clk }
}

// wallClock is the real time.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// CallOption adjusts one call.
type CallOption func(*callSettings)

type callSettings struct {
	idempotencyKey string
	response       *Response
	header         http.Header
}

// WithHeader sends the header name: value with the call, e.g. Cache-Control: no-cache to make
// a query read afresh instead of from the answer cache. It cannot replace the headers the client
// sets itself (credential, content type, idempotency key).
func WithHeader(name, value string) CallOption {
	return func(s *callSettings) {
		if s.header == nil {
			s.header = http.Header{}
		}
		s.header.Add(name, value)
	}
}

// WithIdempotencyKey sends key as the call's Idempotency-Key (1 to 255 printable ASCII
// characters) instead of a generated one, e.g. to make a retry by the caller replay the first
// answer. Only the routes that take a key send it.
func WithIdempotencyKey(key string) CallOption {
	return func(s *callSettings) { s.idempotencyKey = key }
}

// WithResponse fills r with what the last attempt of the call was answered, error or not.
func WithResponse(r *Response) CallOption {
	return func(s *callSettings) { s.response = r }
}

// Response describes the HTTP answer to a call.
type Response struct {
	StatusCode int
	Header     http.Header
	// RequestID is the answer's X-Request-Id.
	RequestID string
	// IdempotencyKey is the key the call sent (given or generated), "" if none.
	IdempotencyKey string
	// Replayed is true when the API answered with the stored answer of an earlier call with the
	// same key (X-Idempotent-Replayed: true).
	Replayed bool
	// Attempts counts the requests sent, retries included.
	Attempts int
}
