// Package netclient is the HTTP client the network connectors share: bounded retries with
// exponential backoff on 5xx answers, timeouts and transport errors, and waits as told on 429
// (Retry-After, or the network's own hint). Sleeping goes through Config.Sleep, so tests do not
// wait for real.
package netclient

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Config tunes a Client. Zero values take the defaults.
type Config struct {
	// HTTP sends the requests (default: a client without its own timeout).
	HTTP *http.Client
	// Timeout bounds one attempt (default 60 s).
	Timeout time.Duration
	// MaxAttempts bounds the attempts of a request failing with 5xx or a timeout (default 4).
	MaxAttempts int
	// BaseDelay is the first backoff; each next one doubles, up to MaxDelay (defaults 1 s, 16 s).
	BaseDelay, MaxDelay time.Duration
	// MaxRateLimitWaits bounds how many 429 answers a request waits out (default 5), and
	// MaxRetryAfter how long one wait may be (default 5 min).
	MaxRateLimitWaits int
	MaxRetryAfter     time.Duration
	// Sleep waits d or until ctx ends (default: a timer).
	Sleep func(ctx context.Context, d time.Duration) error
}

func (c Config) withDefaults() Config {
	if c.HTTP == nil {
		c.HTTP = &http.Client{}
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = 4
	}
	if c.BaseDelay <= 0 {
		c.BaseDelay = time.Second
	}
	if c.MaxDelay <= 0 {
		c.MaxDelay = 16 * time.Second
	}
	if c.MaxRateLimitWaits <= 0 {
		c.MaxRateLimitWaits = 5
	}
	if c.MaxRetryAfter <= 0 {
		c.MaxRetryAfter = 5 * time.Minute
	}
	if c.Sleep == nil {
		c.Sleep = sleep
	}
	return c
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Client sends requests with retries.
type Client struct{ cfg Config }

// New returns a client for cfg.
func New(cfg Config) *Client { return &Client{cfg: cfg.withDefaults()} }

// Request is one HTTP request; Body is sent again on each attempt.
type Request struct {
	Method string
	URL    string
	Header http.Header
	Body   []byte
}

// Response is a network's answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// HintFunc reads a network's own retry hint from a 429 answer (0 when it gives none).
type HintFunc func(Response) time.Duration

// StatusError is a request that still failed after its retries.
type StatusError struct {
	Status   int
	Body     string
	Attempts int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("HTTP %d after %d attempts: %s", e.Status, e.Attempts, truncate(e.Body, 300))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Do sends req. It answers the first response that is neither 5xx nor 429 (the caller reads
// the network's error shapes from it); 5xx answers, timeouts and transport errors are retried
// with exponential backoff up to MaxAttempts; 429 answers wait Retry-After (or hint's value, or
// the backoff) up to MaxRateLimitWaits times.
func (c *Client) Do(ctx context.Context, req Request, hint HintFunc) (Response, error) {
	var failures, waits int
	for {
		resp, err := c.attempt(ctx, req)
		if ctx.Err() != nil {
			return Response{}, ctx.Err()
		}
		var wait time.Duration
		switch {
		case err != nil || resp.Status >= 500:
			failures++
			if failures >= c.cfg.MaxAttempts {
				if err != nil {
					return Response{}, fmt.Errorf("%s %s: %w (after %d attempts)", req.Method, redact(req.URL), err, failures)
				}
				return resp, &StatusError{Status: resp.Status, Body: string(resp.Body), Attempts: failures}
			}
			wait = c.backoff(failures)
		case resp.Status == http.StatusTooManyRequests:
			waits++
			if waits > c.cfg.MaxRateLimitWaits {
				return resp, &StatusError{Status: resp.Status, Body: string(resp.Body), Attempts: failures + waits}
			}
			wait = retryAfter(resp, hint)
			if wait <= 0 {
				wait = c.backoff(waits)
			}
			wait = min(wait, c.cfg.MaxRetryAfter)
		default:
			return resp, nil
		}
		if err := c.cfg.Sleep(ctx, wait); err != nil {
			return Response{}, err
		}
	}
}

func (c *Client) backoff(n int) time.Duration {
	d := c.cfg.BaseDelay << (n - 1)
	if d <= 0 || d > c.cfg.MaxDelay {
		d = c.cfg.MaxDelay
	}
	return d
}

func retryAfter(resp Response, hint HintFunc) time.Duration {
	if hint != nil {
		if d := hint(resp); d > 0 {
			return d
		}
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}

func (c *Client) attempt(ctx context.Context, req Request) (Response, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return Response{}, err
	}
	for k, v := range req.Header {
		hr.Header[k] = v
	}
	resp, err := c.cfg.HTTP.Do(hr)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return Response{}, fmt.Errorf("transport: %w", ue.Err)
		}
		return Response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, fmt.Errorf("reading the answer: %w", err)
	}
	return Response{Status: resp.StatusCode, Header: resp.Header, Body: b}, nil
}

// redact drops the query of a URL (alpha carries the access token there).
func redact(u string) string {
	base, _, _ := strings.Cut(u, "?")
	return base
}
