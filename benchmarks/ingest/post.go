package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/valyala/fasthttp"
)

// poster is the load generator's HTTP client: fasthttp's, posting bodies made before the clock
// starts, as wrk or hey would, so that as little of the machine as possible goes to making the
// requests. The bodies are the JSON that mtk's Go client sends (its types are used to make
// them); that client, on net/http, costs about a tenth of the machine at 10,000 requests/s.
type poster struct {
	hc   *fasthttp.HostClient
	base string
	auth string // the Authorization header ("": none)
}

func newPoster(base, apiKey string, conns int) *poster {
	p := &poster{hc: &fasthttp.HostClient{Addr: strings.TrimPrefix(base, "http://"), MaxConns: conns}, base: base}
	if apiKey != "" {
		p.auth = "Bearer " + apiKey
	}
	return p
}

// answerError is an answer other than 2xx.
type answerError struct {
	status int
	body   string
}

func (e *answerError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// answered reports whether err is an answer (rather than a request that got none).
func answered(err error) bool {
	var a *answerError
	return errors.As(err, &a)
}

// request makes the call that posts v's JSON to path; its error is an *answerError for an answer
// other than 2xx.
func (p *poster) request(path string, v any) (func() error, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	uri := p.base + path
	return func() error {
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI(uri)
		req.Header.SetMethod(fasthttp.MethodPost)
		req.Header.SetContentType("application/json")
		if p.auth != "" {
			req.Header.Set(fasthttp.HeaderAuthorization, p.auth)
		}
		req.SetBodyRaw(body)
		if err := p.hc.Do(req, resp); err != nil {
			return err
		}
		if code := resp.StatusCode(); code < 200 || code > 299 {
			return &answerError{status: code, body: string(resp.Body())}
		}
		return nil
	}, nil
}
