package api_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/auth"
)

// faultRoute is a route kind under a PostgreSQL fault: the tables its request touches that a
// held lock freezes, how to make its request (anything it needs is made before the fault, and
// the request can be sent again, as a client's retry), the status of a request that succeeds,
// and, for a write, how many rows the n-th case stored.
type faultRoute struct {
	name    string
	tables  []string
	prepare func(n int) func() response
	ok      int
	stored  func(n int) int
}

// faultRoutes are one route of each kind for tenant a. n tells the cases apart (ids, keys).
func (e *env) faultRoutes(a trackingTenant) []faultRoute {
	writeKey := e.key(a.ws.ID, nil, auth.ScopeDataRead, auth.ScopeTrackingRead, auth.ScopeTrackingWrite)
	clients := map[int]string{} // the OAuth client of each case
	events := func(n int) int {
		return e.pgCount(e.t, "SELECT count(*) FROM event_outbox WHERE event_id = $1", fmt.Sprintf("fault-%d", n))
	}
	return []faultRoute{
		{"query", []string{"projects"}, func(int) func() response {
			body := map[string]any{"project_id": a.project.ID, "fields": []string{"spend"},
				"time": map[string]any{"start": "2026-03-01", "end": "2026-03-07"}}
			return func() response { return e.do("POST", "/v3/query", body, bearer(a.readKey)...) }
		}, 200, nil},
		{"event", []string{"event_outbox"}, func(n int) func() response {
			body := map[string]any{"event_id": fmt.Sprintf("fault-%d", n), "config": map[string]any{"name": "Lead"},
				"lead": map[string]any{"email": "ana@x.com"}}
			h := append([]string{"Idempotency-Key", fmt.Sprintf("event-%d", n)}, bearer(writeKey)...)
			return func() response { return e.do("POST", "/v3/tracking/events", body, h...) }
		}, 200, events},
		{"event, at its Idempotency-Key", []string{"idempotency_records"}, func(n int) func() response {
			body := map[string]any{"event_id": fmt.Sprintf("fault-%d", n), "config": map[string]any{"name": "Lead"}}
			h := append([]string{"Idempotency-Key", fmt.Sprintf("event-%d", n)}, bearer(writeKey)...)
			return func() response { return e.do("POST", "/v3/tracking/events", body, h...) }
		}, 200, events},
		{"event preflight", []string{"containers"}, func(int) func() response {
			return func() response {
				return e.do("OPTIONS", "/v3/tracking/events", nil, "Origin", "https://acme.example")
			}
		}, 204, nil},
		{"order", []string{"orders"}, func(n int) func() response {
			tx := order(fmt.Sprintf("fault-%d", n), "approved", 5000, e.clock.Now())
			return func() response { return e.webhook(a.custom.WebhookKey, tx) }
		}, 200, func(n int) int {
			return e.pgCount(e.t, "SELECT count(*) FROM orders WHERE transaction_id = $1", fmt.Sprintf("fault-%d", n))
		}},
		{"platform read", []string{"sync_runs"}, func(int) func() response {
			return func() response { return e.do("GET", "/v3/connections/"+a.alpha.ID+"/sync", nil, bearer(a.readKey)...) }
		}, 200, nil},
		{"platform write", []string{"triggers"}, func(n int) func() response {
			body := apiTrigger(fmt.Sprintf("Fault %d", n), "Lead", false)
			h := append([]string{"Idempotency-Key", fmt.Sprintf("trigger-%d", n)}, bearer(writeKey)...)
			return func() response {
				return e.do("POST", "/v3/tracking/containers/"+a.v3.ID+"/triggers", body, h...)
			}
		}, 201, func(n int) int {
			return e.pgCount(e.t, "SELECT count(*) FROM triggers WHERE name = $1", fmt.Sprintf("Fault %d", n))
		}},
		{"oauth token", []string{"oauth_codes"}, func(n int) func() response {
			client := e.newClient(false, auth.ScopeDataRead)
			clients[n] = client.ID
			f := e.startFlow(client, nil)
			code := f.code(a.tenant)
			return func() response { return f.exchange(code, nil) }
		}, 200, func(n int) int {
			return e.pgCount(e.t, "SELECT count(*) FROM api_keys WHERE oauth_client_id = $1", clients[n])
		}},
	}
}

// locker holds locks on a connection of its own, as another session would.
type locker struct {
	conn *pgx.Conn
	tx   pgx.Tx
}

// freeze takes an ACCESS EXCLUSIVE lock on tables until thaw: every statement that touches them
// waits, as on a PostgreSQL that stopped answering.
func (e *env) freeze(t *testing.T, tables ...string) *locker {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, e.cfg.PostgresURL)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The names are the test's own.
	if _, err := tx.Exec(ctx, "LOCK TABLE "+strings.Join(tables, ", ")+" IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	return &locker{conn: conn, tx: tx}
}

// terminateWhenWaiting ends, as pg_terminate_backend does, every connection of the server's
// pool once one of them waits for the locker's lock: a PostgreSQL shut down mid-request.
func (l *locker) terminateWhenWaiting(t *testing.T) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		ctx := context.Background()
		for range 500 {
			var waiting int
			if err := l.tx.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
				WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
				t.Error(err)
				return
			}
			if waiting > 0 {
				if _, err := l.tx.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
					WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`); err != nil {
					t.Error(err)
				}
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Error("no request waited for the lock")
	}()
	return done
}

func (l *locker) thaw(t *testing.T) {
	t.Helper()
	if err := l.tx.Rollback(context.Background()); err != nil {
		t.Fatal(err)
	}
	l.conn.Close(context.Background()) //nolint:errcheck
}

// A PostgreSQL frozen (a lock held on what the route touches) or shut down (its connections
// terminated) in the middle of a request is answered 503 with Retry-After within the store
// timeout, on every kind of route; the retry after Retry-After succeeds, and a write is stored
// once. An event's Idempotency-Key whose record was claimed when PostgreSQL froze is free again
// for the retry.
func TestStoreFaultsAre503WithinTheDeadline(t *testing.T) {
	e := newEnv(t)
	e.cfg.StoreTimeout = time.Second
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	n := 0
	for _, fault := range []string{"frozen", "terminated"} {
		for _, rt := range e.faultRoutes(a) {
			t.Run(fault+"/"+rt.name, func(t *testing.T) {
				n++
				e.clock.Advance(time.Minute) // caches forget what they read: every case reads PostgreSQL
				send := rt.prepare(n)
				l := e.freeze(t, rt.tables...)
				var terminated <-chan struct{}
				if fault == "terminated" {
					terminated = l.terminateWhenWaiting(t)
				}
				start := time.Now()
				r := send()
				took := time.Since(start)
				if terminated != nil {
					<-terminated
				}
				l.thaw(t)
				if r.Status != 503 {
					t.Fatalf("%d %s, want 503", r.Status, r.Body)
				}
				retryAfter, err := strconv.Atoi(r.Header.Get("Retry-After"))
				if err != nil || retryAfter < 1 {
					t.Fatalf("503 with Retry-After %q", r.Header.Get("Retry-After"))
				}
				if took > e.cfg.StoreTimeout+time.Second {
					t.Fatalf("answered after %s, want within the store timeout (%s)", took, e.cfg.StoreTimeout)
				}
				e.clock.Advance(time.Duration(retryAfter) * time.Second)
				if again := send(); again.Status != rt.ok || again.Header.Get("X-Idempotent-Replayed") != "" {
					t.Fatalf("retry: %d %s (replayed %q), want %d", again.Status, again.Body,
						again.Header.Get("X-Idempotent-Replayed"), rt.ok)
				}
				// Stored by the retry, never also by the request that was answered 503.
				if rt.stored != nil {
					if got := rt.stored(n); got != 1 {
						t.Fatalf("stored %d times, want once", got)
					}
				}
			})
		}
	}
}

// waitForLockWaiter returns once a connection of the test's database waits for a lock.
func (l *locker) waitForLockWaiter(t *testing.T) {
	t.Helper()
	for range 500 {
		var waiting int
		if err := l.tx.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("no request waited for the lock")
}

// PostgreSQL freezes after an event's Idempotency-Key was claimed: the event is answered 503
// within the store timeout, its record can be neither finished nor removed, and yet the retry
// after Retry-After runs (the record's lease has ended), never 409, and the event is stored once.
func TestKeyOfAFailedCallIsFreeForTheRetry(t *testing.T) {
	e := newEnv(t)
	e.cfg.StoreTimeout = time.Second
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	body := map[string]any{"event_id": "frozen-1", "config": map[string]any{"name": "Lead"}, "lead": map[string]any{"email": "ana@x.com"}}
	h := append([]string{"Idempotency-Key", "frozen-1"}, bearer(a.key)...)
	l := e.freeze(t, "event_outbox")
	answered := make(chan response, 1)
	start := time.Now()
	go func() { answered <- e.do("POST", "/v3/tracking/events", body, h...) }()
	l.waitForLockWaiter(t) // the key is claimed and the event's batch waits
	if _, err := l.tx.Exec(context.Background(), "LOCK TABLE idempotency_records IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	r := <-answered
	took := time.Since(start)
	if r.Status != 503 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("%d %s (Retry-After %q), want 503 with Retry-After", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	if took > e.cfg.StoreTimeout+time.Second {
		t.Fatalf("answered after %s, want within the store timeout (%s)", took, e.cfg.StoreTimeout)
	}
	l.thaw(t)
	if n := e.pgCount(t, "SELECT count(*) FROM idempotency_records WHERE status IS NULL"); n != 1 {
		t.Fatalf("%d unfinished records, want the failed call's", n)
	}
	retryAfter, _ := strconv.Atoi(r.Header.Get("Retry-After"))
	e.clock.Advance(time.Duration(retryAfter) * time.Second)
	if again := e.do("POST", "/v3/tracking/events", body, h...); again.Status != 200 || again.Header.Get("X-Idempotent-Replayed") != "" {
		t.Fatalf("retry: %d %s, want the event run", again.Status, again.Body)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM event_outbox WHERE event_id = 'frozen-1'"); n != 1 {
		t.Fatalf("stored %d times, want once", n)
	}
}
