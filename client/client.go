package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Version is this package's version, sent in the default User-Agent.
const Version = "0.1.0"

// Client calls one mtk API with one credential. It is safe for concurrent use.
type Client struct {
	base        string
	http        *http.Client
	token       string
	workspaceID string
	userAgent   string
	maxRetries  int
	clock       Clock
}

// New returns a client of the API at baseURL (e.g. "https://mtk.example.com").
func New(baseURL string, opts ...Option) *Client {
	c := &Client{
		base: strings.TrimRight(baseURL, "/"), http: defaultHTTPClient(), userAgent: "mtk-go/" + Version,
		maxRetries: 2, clock: wallClock{},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// defaultHTTPClient is shared by the clients that bring none, so that they share connections.
// It keeps up to 128 idle connections per host: enough for as many concurrent callers.
var defaultHTTPClient = sync.OnceValue(func() *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 256
	t.MaxIdleConnsPerHost = 128
	return &http.Client{Timeout: 80 * time.Second, Transport: t}
})

// access says which credential a route takes.
type access int

const (
	// withCredential sends the client's API key or JWT (and workspace).
	withCredential access = iota
	// anonymous sends none: login, public events, the order webhook.
	anonymous
)

// keyPolicy says which Idempotency-Key a request sends.
type keyPolicy int

const (
	// noKey: the route takes none, and a given one is not sent.
	noKey keyPolicy = iota
	// givenKey: only the caller's (WithIdempotencyKey).
	givenKey
	// autoKey: the caller's, else a new one per call while retries are on.
	autoKey
)

// request is one call of a route.
type request struct {
	method string
	path   string // escaped, with its query string
	access access
	// safe: sending it twice changes nothing, so a failed connection or a 503 is retried as is.
	safe bool
	// keys says which Idempotency-Key is sent; a key makes the request safe to retry.
	keys keyPolicy
	in   any // encoded as the JSON body; nil sends none
	out  any // a 2xx answer is decoded into it; nil discards it
	// raw is a body sent as it is, and rawOut receives a copy of a 2xx answer's body, for
	// RawRequest.
	raw    []byte
	rawOut *[]byte
}

// bufs recycles the buffers that answers are read into.
var bufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func getBuf() *bytes.Buffer { b := bufs.Get().(*bytes.Buffer); b.Reset(); return b }

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 1<<20 { // very large answers are left to the garbage collector
		bufs.Put(b)
	}
}

// call sends r, with retries, and decodes its answer.
func (c *Client) call(ctx context.Context, r request, opts []CallOption) error {
	var cs callSettings
	for _, o := range opts {
		o(&cs)
	}
	payload := r.raw
	if r.in != nil {
		// Not a pooled buffer: the transport may still read a body after the answer came.
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r.in); err != nil {
			return fmt.Errorf("mtk: %s: encoding the body: %w", r.op(), err)
		}
		payload = buf.Bytes()
	}
	key := ""
	if r.keys != noKey {
		key = cs.idempotencyKey
	}
	if key == "" && r.keys == autoKey && c.maxRetries > 0 {
		key = newIdempotencyKey()
	}
	retrySafe := r.safe || key != ""
	for attempt := 0; ; attempt++ {
		status, err := c.attempt(ctx, r, payload, key, attempt, &cs)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("mtk: %s: %w", r.op(), ctx.Err())
		}
		if attempt >= c.maxRetries || !retryable(status, retrySafe) {
			return r.wrap(err)
		}
		wait, ok := c.wait(ctx, err, attempt)
		if !ok {
			return r.wrap(err)
		}
		if serr := c.clock.Sleep(ctx, wait); serr != nil {
			return fmt.Errorf("mtk: %s: %w (waiting to retry after: %v)", r.op(), serr, err)
		}
	}
}

// op names the call in errors: its method and path.
func (r request) op() string {
	path, _, _ := strings.Cut(r.path, "?")
	return r.method + " " + path
}

// wrap names the call in a transport error; an *Error is returned as it is.
func (r request) wrap(err error) error {
	if _, ok := err.(*Error); ok {
		return err
	}
	return fmt.Errorf("mtk: %s: %w", r.op(), err)
}

// attempt sends r once. It returns the answer's status (0 when none came) and nil, an *Error,
// or the transport's error.
func (c *Client) attempt(ctx context.Context, r request, payload []byte, key string, n int, cs *callSettings) (int, error) {
	var body io.Reader
	if payload != nil {
		body = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, c.base+r.path, body)
	if err != nil {
		return 0, err
	}
	h := req.Header
	for name, values := range cs.header {
		h[name] = values
	}
	h["Accept"] = []string{"application/json"}
	h["User-Agent"] = []string{c.userAgent}
	if payload != nil {
		h["Content-Type"] = []string{"application/json"}
	}
	if r.access == withCredential && c.token != "" {
		h["Authorization"] = []string{"Bearer " + c.token}
		if c.workspaceID != "" {
			h["X-Workspace-Id"] = []string{c.workspaceID}
		}
	}
	if key != "" {
		h["Idempotency-Key"] = []string{key}
	}
	resp, err := c.http.Do(req)
	if cs.response != nil {
		*cs.response = Response{IdempotencyKey: key, Attempts: n + 1}
	}
	if err != nil {
		return 0, err
	}
	buf := getBuf()
	defer putBuf(buf)
	_, err = buf.ReadFrom(resp.Body)
	resp.Body.Close()
	if cs.response != nil {
		cs.response.StatusCode, cs.response.Header = resp.StatusCode, resp.Header
		cs.response.RequestID = resp.Header.Get("X-Request-Id")
		cs.response.Replayed = resp.Header.Get("X-Idempotent-Replayed") == "true"
	}
	if err != nil {
		return 0, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, parseError(resp.StatusCode, resp.Header, buf.Bytes(), c.retryAfter(resp.Header))
	}
	if r.rawOut != nil {
		*r.rawOut = bytes.Clone(buf.Bytes())
	}
	if r.out != nil {
		if err := json.Unmarshal(buf.Bytes(), r.out); err != nil {
			return resp.StatusCode, &decodeError{err: err}
		}
	}
	return resp.StatusCode, nil
}

// decodeError is a 2xx answer that does not read as the route's answer; it is never retried.
type decodeError struct{ err error }

func (e *decodeError) Error() string { return "decoding the answer: " + e.err.Error() }
func (e *decodeError) Unwrap() error { return e.err }

// done returns out, or nil and err.
func done[T any](out *T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return out, nil
}

// pathOf builds a route's path from format and its path parameters, escaped.
func pathOf(format string, params ...string) string {
	args := make([]any, len(params))
	for i, p := range params {
		args[i] = url.PathEscape(p)
	}
	return fmt.Sprintf(format, args...)
}
