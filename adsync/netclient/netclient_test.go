package netclient

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestTimeoutsAreRetriedThenGiveUp: an attempt that outlives Timeout is abandoned and retried
// with backoff; after MaxAttempts the request fails.
func TestTimeoutsAreRetriedThenGiveUp(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			<-r.Context().Done() // held until the client gives up
			return
		}
		w.Write([]byte(`{}`))
	}))
	defer srv.Close()
	var waits []time.Duration
	c := New(Config{Timeout: 20 * time.Millisecond, MaxAttempts: 3,
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	resp, err := c.Do(context.Background(), Request{Method: "GET", URL: srv.URL}, nil)
	if err != nil || resp.Status != 200 || len(waits) != 2 || waits[0] != time.Second || waits[1] != 2*time.Second {
		t.Fatalf("resp %d, err %v, waits %v", resp.Status, err, waits)
	}
	calls.Store(-10)
	if _, err := c.Do(context.Background(), Request{Method: "GET", URL: srv.URL + "/?access_token=secret"}, nil); err == nil {
		t.Fatal("a request that always times out succeeded")
	} else if got := err.Error(); len(got) == 0 || strings.Contains(got, "secret") {
		t.Fatalf("error %q leaks the query", got)
	}
}

// TestRateLimitHint: a 429 waits the network's hint before Retry-After, and client errors are
// answered at once.
func TestRateLimitHint(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch calls.Add(1) {
		case 1:
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
		case 2:
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			w.WriteHeader(http.StatusBadRequest)
		}
	}))
	defer srv.Close()
	var waits []time.Duration
	c := New(Config{Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil }})
	hint := func(r Response) time.Duration {
		if r.Header.Get("Retry-After") == "" {
			return 40 * time.Second
		}
		return 0
	}
	resp, err := c.Do(context.Background(), Request{Method: "GET", URL: srv.URL}, hint)
	if err != nil || resp.Status != 400 || len(waits) != 2 || waits[0] != 7*time.Second || waits[1] != 40*time.Second {
		t.Fatalf("resp %d, err %v, waits %v", resp.Status, err, waits)
	}
}
