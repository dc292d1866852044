package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/valyala/fasthttp"
)

// queryClient asks the pages' tiles from POST /v3/query. It is a lean client (fasthttp's, bodies
// made before the clock starts, no retries; see benchmarks/ingest's poster): answered from the
// cache, a request costs the server a fraction of a millisecond, and net/http's client would
// weigh on the same two cores as much as the server.
type queryClient struct {
	hc     *fasthttp.HostClient
	uri    string
	pages  pageSet
	auths  []string // per project: its workspace key
	verify *verifier
}

func newQueryClient(base string, t *dashTenants, pages pageSet, conns int) *queryClient {
	c := &queryClient{hc: &fasthttp.HostClient{Addr: strings.TrimPrefix(base, "http://"), MaxConns: conns,
		ReadBufferSize: 64 << 10}, uri: base + "/v3/query", pages: pages}
	for _, p := range t.projects {
		c.auths = append(c.auths, "Bearer "+p.key)
	}
	return c
}

// queryTimeout bounds one request: an answer slower than this is an error.
const queryTimeout = 30 * time.Second

// post sends tile r into resp (fresh: with Cache-Control: no-cache); an answer other than 200
// is an error.
func (c *queryClient) post(r request, resp *fasthttp.Response, fresh bool) error {
	req := fasthttp.AcquireRequest()
	defer fasthttp.ReleaseRequest(req)
	req.SetRequestURI(c.uri)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	req.Header.Set(fasthttp.HeaderAuthorization, c.auths[r.project])
	if fresh {
		req.Header.Set(fasthttp.HeaderCacheControl, "no-cache")
	}
	req.SetBodyRaw(c.pages[r.project][r.rng].bodies[r.tile])
	if err := c.hc.DoTimeout(req, resp, queryTimeout); err != nil {
		return err
	}
	if code := resp.StatusCode(); code != fasthttp.StatusOK {
		return fmt.Errorf("%s: HTTP %d: %.300s", tiles[r.tile].Name, code, resp.Body())
	}
	return nil
}

// isHit reads Server-Timing's cache entry: "cache;desc=hit" for an answer from the cache.
func isHit(resp *fasthttp.Response) bool {
	return bytes.Contains(resp.Header.Peek("Server-Timing"), []byte("cache;desc=hit"))
}

// do is the viewers' doer: one tile over HTTP. A measured hit is offered to the verifier.
func (c *queryClient) do(_ context.Context, r request, measured bool) outcome {
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := c.post(r, resp, false); err != nil {
		return outcome{err: err}
	}
	o := outcome{hit: isHit(resp)}
	if o.hit && measured && c.verify != nil {
		c.verify.offer(r, resp)
	}
	return o
}

// check asks a tile once (fresh: Cache-Control: no-cache) and returns its body.
func (c *queryClient) check(r request, fresh bool) ([]byte, error) {
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := c.post(r, resp, fresh); err != nil {
		return nil, err
	}
	return bytes.Clone(resp.Body()), nil
}

// timed asks a tile once and adds its Server-Timing to m.
func (c *queryClient) timed(r request, m *mtkTiming) error {
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := c.post(r, resp, false); err != nil {
		return err
	}
	m.add(resp)
	return nil
}
