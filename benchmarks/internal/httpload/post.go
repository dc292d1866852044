// Package httpload is the benchmarks' lean HTTP load generator for the write path: closed-loop
// clients posting JSON bodies made before the clock starts (Poster), timed by Load.
package httpload

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Poster is the load generator's HTTP client: fasthttp's, posting bodies made before the clock
// starts, as wrk or hey would, so that as little of the machine as possible goes to making the
// requests. The bodies are the JSON that mtk's Go client sends (its types are used to make
// them); that client, on net/http, costs about a tenth of the machine at 10,000 requests/s.
type Poster struct {
	hc   *fasthttp.HostClient
	base string
	auth string // the Authorization header ("": none)
	// Retry, when set, makes the Poster an SDK that Retries: every call carries an
	// Idempotency-Key of its own and is sent again with it, after the Retry-After it was told,
	// when it is answered 503 or not answered; nil sends each call once.
	Retry *Retries
	keys  atomic.Int64
}

// Retries counts the calls a retrying Poster sent again, and those of them answered 409
// idempotency_conflict: a key that a failed call still held.
type Retries struct {
	Sent, Conflicts atomic.Int64
}

// maxAttempts bounds how many times a retrying Poster sends one call.
const maxAttempts = 20

// NewPoster posts to base (http://host:port) over at most conns connections, with apiKey as a
// bearer token unless empty.
func NewPoster(base, apiKey string, conns int) *Poster {
	p := &Poster{hc: &fasthttp.HostClient{Addr: strings.TrimPrefix(base, "http://"), MaxConns: conns}, base: base}
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

// Answered reports whether err is an answer (rather than a request that got none).
func Answered(err error) bool {
	var a *answerError
	return errors.As(err, &a)
}

// Request makes the call that posts v's JSON to path (retried when p Retries); its error is an
// *answerError for an answer other than 2xx.
func (p *Poster) Request(path string, v any) (func() error, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	uri := p.base + path
	if p.Retry == nil {
		return func() error {
			_, err := p.post(uri, body, "")
			return err
		}, nil
	}
	key := "bench-" + strconv.FormatInt(p.keys.Add(1), 10)
	return func() error {
		for attempt := 1; ; attempt++ {
			wait, err := p.post(uri, body, key)
			var a *answerError
			answeredAs := 0
			if errors.As(err, &a) {
				answeredAs = a.status
			}
			if attempt > 1 && answeredAs == fasthttp.StatusConflict {
				p.Retry.Conflicts.Add(1)
			}
			if err == nil || Answered(err) && answeredAs != fasthttp.StatusServiceUnavailable || attempt == maxAttempts {
				return err
			}
			p.Retry.Sent.Add(1)
			time.Sleep(wait)
		}
	}, nil
}

// post sends body to uri once, with key as its Idempotency-Key unless empty, and returns the
// answer's Retry-After (1 s when it has none).
func (p *Poster) post(uri string, body []byte, key string) (retryAfter time.Duration, err error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(uri)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	if p.auth != "" {
		req.Header.Set(fasthttp.HeaderAuthorization, p.auth)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	req.SetBodyRaw(body)
	retryAfter = time.Second
	if err := p.hc.Do(req, resp); err != nil {
		return retryAfter, err
	}
	if s, err := strconv.Atoi(string(resp.Header.Peek(fasthttp.HeaderRetryAfter))); err == nil && s > 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	if code := resp.StatusCode(); code < 200 || code > 299 {
		return retryAfter, &answerError{status: code, body: string(resp.Body())}
	}
	return retryAfter, nil
}
