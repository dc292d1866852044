package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// An api replica killed (SIGKILL) under load loses and doubles nothing: clients send events
// (event_id and Idempotency-Key) and orders (a checkout's resend of the same transaction) through
// HAProxy to three replicas, retrying whatever was not answered 200 (no answer, a 5xx, 409 for a
// key the dead replica held) as real clients do. A third of the way through, a table lock holds
// every replica's batch of events between its keys' claim and its commit, and one replica is
// killed there: its clients get no answer, and its keys are free once their lease ends. Every
// acknowledged event and order is then held once, in PostgreSQL and, drained by a worker, in
// ClickHouse.
func TestKilledReplicaLosesAndDoublesNothing(t *testing.T) {
	useTestStores(t)
	t.Setenv("MTK_RATE_LIMITS", "off")
	// The killed replica's backends notice within 100 ms, even waiting for a lock, and roll back.
	withPGSetting(t, "client_connection_check_interval", "100")
	w := newSalesWorld(t)
	var bases []string
	var victim *os.Process
	for i := range 3 {
		proc, base := serveProcess(t, "--role", "api")
		bases = append(bases, base)
		if i == 1 {
			victim = proc.Process
		}
	}
	serveProcess(t, "--role", "worker")
	lb, lbLog := haproxy(t, bases)

	const clients, perClient = 6, 60
	events, orders := map[string]bool{}, map[string]bool{}
	var mu sync.Mutex
	var acked, retries, conflicts atomic.Int64
	// over stops the clients when the test ends early (a failed check), so that none reports
	// after it: the test waits for them in its cleanup.
	var over atomic.Bool
	deadline := time.Now().Add(45 * time.Second)
	// send retries a write until it is answered 200 and records it in acks.
	send := func(id string, acks map[string]bool, write func() (status, retryAfter int, err error)) bool {
		for !over.Load() {
			status, retryAfter, err := write()
			if err == nil && status == 200 {
				mu.Lock()
				acks[id] = true
				mu.Unlock()
				acked.Add(1)
				return true
			}
			if err == nil && status != 409 && status < 500 {
				t.Errorf("%s: %d", id, status)
				return false
			}
			if time.Now().After(deadline) {
				t.Errorf("%s: still %d %v after 45 s", id, status, err)
				return false
			}
			retries.Add(1)
			if status == 409 {
				conflicts.Add(1)
			}
			wait := 100 * time.Millisecond
			if retryAfter > 0 {
				wait = time.Duration(retryAfter) * time.Second
			}
			time.Sleep(wait)
		}
		return false
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { over.Store(true); wg.Wait() })
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perClient {
				id := fmt.Sprintf("ev-%d-%d", c, i)
				if !send(id, events, func() (int, int, error) {
					status, retryAfter, _, err := postEvent(lb, w.token, id, w.event("shop.example", id))
					return status, retryAfter, err
				}) {
					return
				}
				if i%3 == 0 {
					id := fmt.Sprintf("order-%d-%d", c, i)
					created := time.Now()
					if !send(id, orders, func() (int, int, error) {
						status, err := w.postOrder(lb, id, 1000+i, created)
						return status, 0, err
					}) {
						return
					}
				}
			}
		}()
	}
	total := int64(clients * (perClient + perClient/3))
	for acked.Load() < total/3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	ctx := context.Background()
	lock := holdLock(ctx, t, "LOCK TABLE event_ids IN ACCESS EXCLUSIVE MODE")
	// Each replica stores one batch at a time: three waiting are one on each.
	waiting := func() int64 {
		return w.count(t, "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
	}
	// Up to 30 s: on a loaded machine the replicas' next batches may take seconds to form.
	for i := 0; waiting() < 3; i++ {
		if i == 3000 {
			t.Fatalf("%d replicas' batches wait for the lock, want 3", waiting())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := victim.Kill(); err != nil {
		t.Fatal(err)
	}
	for i := 0; waiting() > 2; i++ {
		if i == 500 {
			t.Fatal("the killed replica's batch still waits 5 s after the kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d writes acknowledged after %d retries", acked.Load(), retries.Load())
	if conflicts.Load() == 0 {
		t.Error("no retry met a key of the killed replica's batch (409): the kill missed its in-flight events")
	}
	w.exactlyOnce(t, []string{w.project}, events, orders)
	if n := w.count(t, "SELECT count(*) FROM idempotency_records WHERE status IS NULL"); n != 0 {
		t.Errorf("%d idempotency keys still claimed", n)
	}
	if !strings.Contains(lbLog.String(), "api/api2 ") {
		t.Errorf("the killed replica answered nothing before it was killed:\n%s", lbLog)
	}
}

// HAProxy (scripts/replicas.sh) retries past a dead replica and words its own 503 as mtk does.
// A replica killed (SIGKILL) stays in HAProxy's rotation until two health checks a second apart
// fail: every event sent meanwhile, a third of them routed to the dead replica by round robin, is
// retried on a live one and answered 200. With every replica dead, HAProxy's own 503 carries
// Retry-After and the contract's envelope.
func TestHAProxyRetriesPastADeadReplica(t *testing.T) {
	useTestStores(t)
	t.Setenv("MTK_RATE_LIMITS", "off")
	w := newSalesWorld(t)
	var replicas []*exec.Cmd
	var bases []string
	for range 3 {
		proc, base := serveProcess(t, "--role", "api")
		replicas, bases = append(replicas, proc), append(bases, base)
	}
	lb, lbLog := haproxy(t, bases)
	kill := func(i int) {
		t.Helper()
		if err := replicas[i].Process.Kill(); err != nil {
			t.Fatal(err)
		}
		for range 100 { // until its port refuses: the kernel closed its socket
			c, err := net.Dial("tcp", strings.TrimPrefix(bases[i], "http://"))
			if err != nil {
				return
			}
			c.Close()
			time.Sleep(10 * time.Millisecond)
		}
		t.Fatalf("replica %d still listens after SIGKILL", i)
	}

	kill(1)
	for i := range 12 {
		id := fmt.Sprintf("ev-%d", i)
		status, _, _, err := postEvent(lb, w.token, id, w.event("shop.example", id))
		if err != nil || status != 200 {
			t.Fatalf("event %s right after a replica's death: %d %v\n%s", id, status, err, lbLog)
		}
	}
	// HAProxy's log counts a request's retries, "+" when it was sent to another server.
	if !strings.Contains(lbLog.String(), "/+1 ") {
		t.Fatalf("no request was retried on another replica:\n%s", lbLog)
	}

	kill(0)
	kill(2)
	resp, err := http.Get(lb + "/v3/projects")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Error struct{ Type, Code, Message, RequestID string } `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("HAProxy's 503 body: %v", err)
	}
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("Content-Type") != "application/json" ||
		body.Error.Type != "api_error" || body.Error.Code != "service_unavailable" || body.Error.Message == "" {
		t.Fatalf("with every replica dead: %d, Retry-After %q, %s %+v", resp.StatusCode, resp.Header.Get("Retry-After"),
			resp.Header.Get("Content-Type"), body)
	}
}
