package client

import (
	"context"
	"net/http"
)

// RawRequest sends body (JSON, or nil for none) to any route of the API, with the client's
// credential, retries and errors, and returns the body of a 2xx answer as it came. It serves the
// routes this package has no method for, and callers that read answers their own way: a
// benchmark that must not time the decoding of a large query answer. path starts with a slash
// and carries its query string.
//
// No idempotency key is made up here: one is sent only when given (WithIdempotencyKey). After a
// failed connection or a 503 the request is sent again only when that is safe: its method is
// GET, HEAD, PUT or DELETE, or it carries a key.
func (c *Client) RawRequest(ctx context.Context, method, path string, body []byte, opts ...CallOption) ([]byte, error) {
	var out []byte
	safe := method == http.MethodGet || method == http.MethodHead || method == http.MethodPut || method == http.MethodDelete
	r := request{method: method, path: path, safe: safe, keys: givenKey, raw: body, rawOut: &out}
	if err := c.call(ctx, r, opts); err != nil {
		return nil, err
	}
	return out, nil
}
