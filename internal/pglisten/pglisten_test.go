package pglisten_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/pglisten"
	"mtk/internal/testenv"
)

// recorder is one channel's subscriber: what it hears, and each Up and Down, in order.
type recorder struct {
	mu     sync.Mutex
	events []string
	seen   chan struct{} // signalled on every event
}

func newRecorder() *recorder { return &recorder{seen: make(chan struct{}, 1)} }

func (r *recorder) add(e string) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	select {
	case r.seen <- struct{}{}:
	default:
	}
}

func (r *recorder) subscriber() pglisten.Subscriber {
	return pglisten.Subscriber{Notify: func(p string) { r.add(p) }, Up: func() { r.add("up") }, Down: func() { r.add("down") }}
}

// waitFor waits until the events heard end with want, failing the test after a minute.
func (r *recorder) waitFor(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		got := append([]string(nil), r.events...)
		r.mu.Unlock()
		if len(got) >= len(want) && equal(got[len(got)-len(want):], want) {
			return
		}
		select {
		case <-r.seen:
		case <-deadline:
			t.Fatalf("heard %q, want it to end with %q", got, want)
		}
	}
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

func notify(t *testing.T, pool *pgxpool.Pool, channel, payload string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), "SELECT pg_notify($1, $2)", channel, payload); err != nil {
		t.Fatal(err)
	}
}

// Two channels share the dispatcher's one connection; when PostgreSQL kills it
// (pg_terminate_backend), every subscriber is told Down, then Up once listening again (its
// resync), and notifications reach them again.
func TestDispatcherRedeliversAfterItsConnectionIsKilled(t *testing.T) {
	pg := testenv.Postgres(t)
	d := pglisten.New(pg.Pool.Config().ConnConfig, nil)
	a, b := newRecorder(), newRecorder()
	for ch, r := range map[string]*recorder{"test_a": a, "test_b": b} {
		if err := d.Handle(ch, r.subscriber()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	a.waitFor(t, "up")
	b.waitFor(t, "up")
	notify(t, pg.Pool, "test_a", "one")
	notify(t, pg.Pool, "test_b", "two")
	a.waitFor(t, "one")
	b.waitFor(t, "two")

	var killed int
	err := pg.Pool.QueryRow(context.Background(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&killed)
	if err != nil || killed != 1 {
		t.Fatalf("killing the listening connection: %d killed, %v", killed, err)
	}
	a.waitFor(t, "down", "up")
	b.waitFor(t, "down", "up")
	notify(t, pg.Pool, "test_a", "three")
	notify(t, pg.Pool, "test_b", "four")
	a.waitFor(t, "three")
	b.waitFor(t, "four")

	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	a.waitFor(t, "three", "down")
}

// A channel is named as LISTEN takes it unquoted, once, before Run.
func TestHandleRefusesBadChannels(t *testing.T) {
	d := pglisten.New(nil, nil)
	for _, ch := range []string{"", "Upper", "a;b", "1st"} {
		if d.Handle(ch, pglisten.Subscriber{}) == nil {
			t.Errorf("channel %q accepted", ch)
		}
	}
	if err := d.Handle("ok_1", pglisten.Subscriber{}); err != nil {
		t.Fatal(err)
	}
	if d.Handle("ok_1", pglisten.Subscriber{}) == nil {
		t.Error("a channel registered twice")
	}
}
