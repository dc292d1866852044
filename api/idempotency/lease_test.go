package idempotency

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// post sends the held call of these tests in the background and returns its answer's channel.
func (ta *testApp) post(t *testing.T, path string) <-chan result {
	t.Helper()
	done := make(chan result, 1)
	go func() {
		r, err := ta.do("POST", path, "{}", "X-Key", "key_a", HeaderKey, "k1")
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	<-ta.entered
	return done
}

// A call that runs longer than its lease keeps renewing it: a repeat long after the first lease
// would have ended is still 409, with Retry-After.
func TestRunningCallRenewsItsLease(t *testing.T) {
	ta := newTestApp(t, nil)
	done := ta.post(t, "/v3/slow")
	ta.clk.Advance(10 * testLease) // the lease Begin gave has ended: only renewals keep the key
	// Wait for a renewal at the moved clock: the record's lease then reaches past its now.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var until time.Time
		if err := ta.pool.QueryRow(t.Context(), "SELECT lease_until FROM idempotency_records WHERE key = 'k1'").Scan(&until); err != nil {
			t.Fatal(err)
		}
		if until.After(ta.clk.Now()) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lease until %v, not renewed past the moved clock's %v within 5 s", until, ta.clk.Now())
		}
	}
	r := ta.call(t, "POST", "/v3/slow", "{}", "X-Key", "key_a", HeaderKey, "k1")
	wantConflict(t, r)
	if r.retryAfter != "1" {
		t.Fatalf("Retry-After %q, want 1", r.retryAfter)
	}
	close(ta.release)
	if first := <-done; first.status != http.StatusOK || first.body != "slow done" {
		t.Fatalf("first call: %+v", first)
	}
	if r := ta.call(t, "POST", "/v3/slow", "{}", "X-Key", "key_a", HeaderKey, "k1"); r.replayed != "true" || r.body != "slow done" {
		t.Fatalf("after the first call: %+v, want its replay", r)
	}
}

// When PostgreSQL stops answering the renewals (here a lock held on the records' table), the
// call stops once its lease ends and is answered 503 with Retry-After; its record, which it could
// not remove, holds the key no longer than the lease, and the retry runs.
func TestCallThatCannotRenewStops(t *testing.T) {
	ta := newTestApp(t, nil)
	ctx := t.Context()
	done := ta.post(t, "/v3/held")
	lock, err := ta.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx) //nolint:errcheck
	if _, err := lock.Exec(ctx, "LOCK TABLE idempotency_records IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	first := <-done
	took := time.Since(start)
	if first.status != http.StatusServiceUnavailable || !strings.Contains(first.body, `"code":"service_unavailable"`) ||
		first.retryAfter != "1" {
		t.Fatalf("call that lost its lease: %+v, want 503 service_unavailable with Retry-After 1", first)
	}
	if took > 2*testLease+time.Second/2 {
		t.Fatalf("answered after %s, want within the lease and the removal's (as long)", took)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	ta.clk.Advance(testLease)
	close(ta.release)
	if r := ta.call(t, "POST", "/v3/held", "{}", "X-Key", "key_a", HeaderKey, "k1"); r.status != http.StatusOK || r.replayed != "" {
		t.Fatalf("retry: %+v, want it to run", r)
	}
	if n := ta.runs.Load(); n != 2 {
		t.Fatalf("handler ran %d times, want 2", n)
	}
}

// A call whose key another call took over (its lease had ended while it was stalled) stops at
// its next renewal, answers 503, and leaves the new owner's record alone.
func TestTakenOverCallStops(t *testing.T) {
	ta := newTestApp(t, nil)
	done := ta.post(t, "/v3/held")
	// What a takeover does to the record: a new first call, with its own start.
	if _, err := ta.pool.Exec(t.Context(), `UPDATE idempotency_records
		SET created_at = created_at + interval '1 second', lease_until = $1`, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if first := <-done; first.status != http.StatusServiceUnavailable || first.retryAfter != "1" {
		t.Fatalf("taken-over call: %+v, want 503 with Retry-After", first)
	}
	wantConflict(t, ta.call(t, "POST", "/v3/held", "{}", "X-Key", "key_a", HeaderKey, "k1"))
	if n := ta.records(t); n != 1 {
		t.Fatalf("%d records, want the new owner's", n)
	}
}
