package client_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"mtk/client"
)

// These tests drive the retry mechanics with answers the real server gives only when a store is
// down or behind a proxy: 503 without Retry-After, Retry-After as a date, other bodies.

// scripted serves the statuses of script in turn (the last one from then on) and counts calls.
func scripted(t *testing.T, script []int, header http.Header) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(calls.Add(1))
		status := script[min(n, len(script))-1]
		for k, v := range header {
			w.Header()[k] = v
		}
		w.Header().Set("X-Request-Id", "req_"+strconv.Itoa(n))
		w.WriteHeader(status)
		if status == http.StatusOK {
			w.Write([]byte(`[]`)) //nolint:errcheck
		} else {
			w.Write([]byte(`{"error":{"type":"api_error","code":"service_unavailable","message":"down","details":null,"request_id":"req_` + strconv.Itoa(n) + `"}}`)) //nolint:errcheck
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

func TestBackoffWithoutRetryAfter(t *testing.T) {
	srv, calls := scripted(t, []int{503, 503, 503, 200}, nil)
	clk := &fakeClock{}
	c := client.New(srv.URL, client.WithClock(clk), client.WithMaxRetries(3))
	if _, err := c.ListProjects(context.Background()); err != nil {
		t.Fatal(err)
	}
	waits := clk.Waits()
	if calls.Load() != 4 || len(waits) != 3 {
		t.Fatalf("%d calls, waits %v", calls.Load(), waits)
	}
	for i, d := range waits {
		ceiling := 500 * time.Millisecond << i
		if d < ceiling/2 || d > ceiling {
			t.Fatalf("wait %d is %s, want between %s and %s", i, d, ceiling/2, ceiling)
		}
	}

	// Out of retries, the last answer is the error.
	srv, calls = scripted(t, []int{503}, nil)
	c = client.New(srv.URL, client.WithClock(&fakeClock{}))
	_, err := c.ListProjects(context.Background())
	e := wantAPIError(t, err, 503, client.ErrorTypeAPI, client.CodeServiceUnavailable)
	if !client.IsUnavailable(err) || calls.Load() != 3 || e.RequestID != "req_3" {
		t.Fatalf("%d calls; %v", calls.Load(), e)
	}
}

func TestRetryAfterAsDateAndTooLong(t *testing.T) {
	srv, _ := scripted(t, []int{429, 200}, http.Header{"Retry-After": {time.Now().Add(30 * time.Second).UTC().Format(http.TimeFormat)}})
	clk := &fakeClock{}
	if _, err := client.New(srv.URL, client.WithClock(clk)).ListProjects(context.Background()); err != nil {
		t.Fatal(err)
	}
	if w := clk.Waits(); len(w) != 1 || w[0] <= 28*time.Second || w[0] > 30*time.Second {
		t.Fatalf("waits %v, want about 30 s", w)
	}

	srv, calls := scripted(t, []int{429, 200}, http.Header{"Retry-After": {"3600"}})
	clk = &fakeClock{}
	_, err := client.New(srv.URL, client.WithClock(clk)).ListProjects(context.Background())
	if e, ok := client.AsError(err); !ok || e.RetryAfter != time.Hour || calls.Load() != 1 || len(clk.Waits()) != 0 {
		t.Fatalf("an hour's Retry-After: %v after %d calls", err, calls.Load())
	}
}

func TestOtherErrorsAreNotRetried(t *testing.T) {
	var calls atomic.Int32
	var ua string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		ua = r.Header.Get("User-Agent")
		w.WriteHeader(http.StatusBadGateway)
		w.Write([]byte("<html>bad gateway</html>")) //nolint:errcheck
	}))
	t.Cleanup(srv.Close)
	_, err := client.New(srv.URL, client.WithClock(&fakeClock{}), client.WithUserAgent("dash/1.0")).ListProjects(context.Background())
	e, ok := client.AsError(err)
	if !ok || e.StatusCode != 502 || e.Type != client.ErrorTypeAPI || e.Message != "Bad Gateway: <html>bad gateway</html>" || calls.Load() != 1 {
		t.Fatalf("%d calls: %#v", calls.Load(), err)
	}
	if ua != "dash/1.0" {
		t.Fatalf("User-Agent %q", ua)
	}
}

// cancelingClock cancels the call's context when asked to wait, as a caller giving up would.
type cancelingClock struct {
	fakeClock
	cancel context.CancelFunc
}

func (c *cancelingClock) Sleep(ctx context.Context, d time.Duration) error {
	c.cancel()
	<-ctx.Done()
	return ctx.Err()
}

func TestContextCancel(t *testing.T) {
	srv, calls := scripted(t, []int{429}, http.Header{"Retry-After": {"30"}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := client.New(srv.URL, client.WithClock(&cancelingClock{cancel: cancel})).ListProjects(ctx)
	if !errors.Is(err, context.Canceled) || calls.Load() != 1 {
		t.Fatalf("canceled while waiting: %v after %d calls", err, calls.Load())
	}

	// Canceled while the request is in flight: no retry, though a GET is safe to repeat.
	started := make(chan struct{})
	var inFlight atomic.Int32
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		inFlight.Add(1)
		close(started)
		<-r.Context().Done()
	}))
	t.Cleanup(slow.Close)
	ctx, cancel = context.WithCancel(context.Background())
	go func() {
		<-started
		cancel()
	}()
	_, err = client.New(slow.URL, client.WithClock(&fakeClock{})).ListProjects(ctx)
	if !errors.Is(err, context.Canceled) || inFlight.Load() != 1 {
		t.Fatalf("canceled in flight: %v after %d calls", err, inFlight.Load())
	}
}
