package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"mtk/client"
	"mtk/platform"
)

// TestRetryAfterFromTheRateLimiter uses up a default-tier key's 120 requests a minute; the next
// call is answered 429 with Retry-After, and the client waits exactly that long (on its fake
// clock, which moves the server's) and then succeeds.
func TestRetryAfterFromTheRateLimiter(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	noRetry, _ := w.client(w.readKey, client.WithMaxRetries(0))
	limit := platform.RequestsPerMinute(platform.TierDefault)
	useUp := func(n int) {
		t.Helper()
		for i := range n {
			if _, err := noRetry.ListProjects(ctx); err != nil {
				t.Fatalf("call %d: %v", i, err)
			}
		}
	}
	useUp(limit)

	_, err := noRetry.ListProjects(ctx)
	e := wantAPIError(t, err, 429, client.ErrorTypeRateLimit, client.CodeRateLimitExceeded)
	if !client.IsRateLimited(err) || e.RetryAfter != time.Minute {
		t.Fatalf("rate limited %v, Retry-After %s", client.IsRateLimited(err), e.RetryAfter)
	}

	// A deadline before the end of the wait: the 429 comes back at once.
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c, clk := w.client(w.readKey)
	if _, err := c.ListProjects(short); !client.IsRateLimited(err) || len(clk.Waits()) != 0 {
		t.Fatalf("with a 10 s deadline: %v after waits %v", err, clk.Waits())
	}

	var resp client.Response
	ps, err := c.ListProjects(ctx, client.WithResponse(&resp))
	if err != nil || len(ps) != 1 {
		t.Fatalf("after waiting: %v, %v", ps, err)
	}
	if !slices.Equal(clk.Waits(), []time.Duration{time.Minute}) || resp.Attempts != 2 || resp.StatusCode != 200 || resp.RequestID == "" {
		t.Fatalf("waits %v, response %+v", clk.Waits(), resp)
	}

	// Out of retries: the last 429 is the error.
	useUp(limit - 1)      // the retry above was the window's first
	stuck := &fakeClock{} // does not move the server's clock
	c = client.New(w.srv.URL, client.WithAPIKey(w.readKey), client.WithClock(stuck), client.WithMaxRetries(1))
	_, err = c.ListProjects(ctx, client.WithResponse(&resp))
	if !client.IsRateLimited(err) || resp.Attempts != 2 || !slices.Equal(stuck.Waits(), []time.Duration{time.Minute}) {
		t.Fatalf("%v after %d attempts, waits %v", err, resp.Attempts, stuck.Waits())
	}
}

// TestRetryReusesTheIdempotencyKey loses the answer of a write that the server has handled: the
// retry carries the same generated key, so the server replays its first answer instead of
// storing the event again.
func TestRetryReusesTheIdempotencyKey(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	rec := &recorder{base: http.DefaultTransport, loseFirst: true}
	c, clk := w.client(w.trackKey, client.WithHTTPClient(&http.Client{Transport: rec}))
	var resp client.Response
	res, err := c.TrackEvent(ctx, &client.Event{Config: client.EventConfig{Name: "Lead"}, Lead: &client.Lead{Email: "ana@example.com"}},
		client.WithResponse(&resp))
	if err != nil {
		t.Fatal(err)
	}
	keys := rec.Keys()
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] || resp.IdempotencyKey != keys[0] {
		t.Fatalf("keys sent %q, response's %q", keys, resp.IdempotencyKey)
	}
	var lost client.EventResult
	if err := json.Unmarshal(rec.lostBody, &lost); err != nil {
		t.Fatal(err)
	}
	if !resp.Replayed || resp.Attempts != 2 || res.EventID != lost.EventID || len(clk.Waits()) != 1 {
		t.Fatalf("replayed %v after %d attempts: event %s, the lost answer's %s; waits %v", resp.Replayed, resp.Attempts,
			res.EventID, lost.EventID, clk.Waits())
	}
	var stored uint64
	w.srv.Drain(t)
	if err := w.srv.ClickHouse.QueryRow(ctx, "SELECT count() FROM events WHERE project_id = ?", w.tn.Project.ID).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 1 {
		t.Fatalf("%d events stored, want 1", stored)
	}

	// A 503 that the server did not send (a proxy's): the retry replays the stored trigger.
	rec = &recorder{base: http.DefaultTransport, replaceStatus: http.StatusServiceUnavailable}
	c, _ = w.client(w.trackKey, client.WithHTTPClient(&http.Client{Transport: rec}))
	trg, err := c.CreateTrigger(ctx, w.tn.Container.ID, client.NewAPITrigger("Lead", "lead", "Lead"), client.WithResponse(&resp))
	if err != nil {
		t.Fatal(err)
	}
	page, err := c.ListTriggers(ctx, w.tn.Container.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Replayed || page.Pagination.Total != 1 || page.Data[0].ID != trg.ID {
		t.Fatalf("replayed %v; %d triggers", resp.Replayed, page.Pagination.Total)
	}
}

func TestIdempotencyKeys(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	ev := &client.Event{Config: client.EventConfig{Name: "PageView"}}

	// With retries off nothing is generated, but a given key is sent.
	rec := &recorder{base: http.DefaultTransport}
	c, _ := w.client(w.trackKey, client.WithMaxRetries(0), client.WithHTTPClient(&http.Client{Transport: rec}))
	if _, err := c.TrackEvent(ctx, ev); err != nil {
		t.Fatal(err)
	}
	var first, again client.Response
	link := &client.LinkInput{Name: "Promo", Phone: "5511912345678", Message: "Hi"}
	a, err := c.CreateLink(ctx, link, client.WithIdempotencyKey("link-1"), client.WithResponse(&first))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.CreateLink(ctx, link, client.WithIdempotencyKey("link-1"), client.WithResponse(&again))
	if err != nil {
		t.Fatal(err)
	}
	if keys := rec.Keys(); !slices.Equal(keys, []string{"", "link-1", "link-1"}) {
		t.Fatalf("keys sent %q", keys)
	}
	if first.Replayed || !again.Replayed || a.ID != b.ID {
		t.Fatalf("first replayed %v, second %v; links %s and %s", first.Replayed, again.Replayed, a.ID, b.ID)
	}
	// The same key for another body is a conflict.
	_, err = c.CreateLink(ctx, &client.LinkInput{Name: "Other", Phone: "5511912345678", Message: "Hi"}, client.WithIdempotencyKey("link-1"))
	wantAPIError(t, err, 409, client.ErrorTypeConflict, client.CodeIdempotencyConflict)
	if !client.IsIdempotencyConflict(err) {
		t.Fatal("IsIdempotencyConflict is false")
	}
}

// TestUnsafeRequestIsNotRetried sends a raw POST without a key whose answer is lost: it is not
// sent again, since the server may have acted on it (here it did).
func TestUnsafeRequestIsNotRetried(t *testing.T) {
	w := newWorld(t, platform.TierDefault)
	ctx := context.Background()
	rec := &recorder{base: http.DefaultTransport, loseFirst: true}
	c, clk := w.client(w.trackKey, client.WithHTTPClient(&http.Client{Transport: rec}))
	var resp client.Response
	_, err := c.RawRequest(ctx, "POST", "/v3/tracking/events", []byte(`{"config":{"name":"Lead"}}`), client.WithResponse(&resp))
	var apiErr *client.Error
	if err == nil || errors.As(err, &apiErr) || !strings.Contains(err.Error(), "POST /v3/tracking/events") {
		t.Fatalf("want the transport's error, got %v", err)
	}
	if resp.Attempts != 1 || len(rec.Keys()) != 1 || rec.Keys()[0] != "" || len(clk.Waits()) != 0 {
		t.Fatalf("%d attempts, keys %q, waits %v", resp.Attempts, rec.Keys(), clk.Waits())
	}
	// The same route answers through RawRequest as it is.
	body, err := c.RawRequest(ctx, "GET", "/v3/tracking/containers/"+w.tn.Container.ID, nil)
	if err != nil || !strings.Contains(string(body), `"id":"`+w.tn.Container.ID+`"`) {
		t.Fatalf("raw GET: %s, %v", body, err)
	}
}
