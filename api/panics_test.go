package api_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/internal/config"
	"mtk/internal/runner"
	"mtk/platform"
)

// injectedPanic is what panickingCH raises: a bug in code that runs beside the API.
const injectedPanic = "injected: a bug beside the API"

// panickingCH is the test's ClickHouse, with a panic injected into the calls that the drainers'
// inserts (PrepareBatch) or the queries' runs (Query, QueryRow) make while armed.
type panickingCH struct {
	driver.Conn
	inserts, queries atomic.Bool
	raised           atomic.Int64
}

func (c *panickingCH) raise(armed *atomic.Bool) {
	if armed.Load() {
		c.raised.Add(1)
		panic(injectedPanic)
	}
}

func (c *panickingCH) PrepareBatch(ctx context.Context, query string, opts ...driver.PrepareBatchOption) (driver.Batch, error) {
	c.raise(&c.inserts)
	return c.Conn.PrepareBatch(ctx, query, opts...)
}

func (c *panickingCH) Query(ctx context.Context, query string, args ...any) (driver.Rows, error) {
	c.raise(&c.queries)
	return c.Conn.Query(ctx, query, args...)
}

func (c *panickingCH) QueryRow(ctx context.Context, query string, args ...any) driver.Row {
	c.raise(&c.queries)
	return c.Conn.QueryRow(ctx, query, args...)
}

// withPanickingCH rebuilds e's system over a panickingCH.
func (e *env) withPanickingCH() *panickingCH {
	ch := &panickingCH{Conn: e.ch}
	e.ch = ch
	e.cfg.ClickHouseHTTPURL = config.ReadsNative // the queries' statements through ch too
	e.rebuild()
	return ch
}

// The real workers (wire.StartWorkers) whose event drainer panics in its insert go on: the API
// answers events meanwhile, each panic is logged once with its cause, and once the bug is gone
// the next cycle lands every event exactly once.
func TestPanickingDrainerLeavesTheAPIAnswering(t *testing.T) {
	e := newEnv(t)
	ch := e.withPanickingCH()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	ch.inserts.Store(true)
	ctx := context.Background()
	if err := e.sys.StartWorkers(); err != nil {
		t.Fatal(err)
	}

	send := func(id string) {
		t.Helper()
		body := map[string]any{"event_id": id, "config": map[string]any{"name": "Lead"}, "lead": map[string]any{"email": id + "@x.com"}}
		if r := e.event(body, bearer(a.key)...); r.Status != 200 {
			t.Fatalf("event %s: %d %s", id, r.Status, r.Body)
		}
	}
	send("ev-1")
	waitFor(t, "a drainer's panic", func() bool { return ch.raised.Load() > 0 })
	send("ev-2") // the process and its API live on
	waitFor(t, "a second cycle's panic", func() bool { return ch.raised.Load() > 1 })
	ch.inserts.Store(false)
	var rows, ids uint64
	waitFor(t, "the events in ClickHouse", func() bool {
		err := e.ch.QueryRow(ctx, "SELECT count(), uniqExact(event_id) FROM events WHERE project_id = ?", a.project.ID).Scan(&rows, &ids)
		return err == nil && rows >= 2
	})
	e.sys.Close() // stops the workers and waits for them: every line is logged
	if rows != 2 || ids != 2 {
		t.Fatalf("%d event rows of %d ids, want 2 of 2", rows, ids)
	}
	var logged int64
	for _, l := range strings.Split(e.logs.String(), "\n") {
		if strings.Contains(l, `"msg":"`+runner.FailedMsg+`"`) && strings.Contains(l, "panic: "+injectedPanic) {
			if logged++; !strings.Contains(l, "goroutine") {
				t.Errorf("the panic's line has no stack: %s", l)
			}
		}
	}
	if logged != ch.raised.Load() {
		t.Fatalf("%d panics logged, %d raised:\n%s", logged, ch.raised.Load(), e.logs)
	}
}

// A query whose single-flight run panics (here first in sizing the query slots, then in its
// statement) is answered 500 internal_error, to its caller and to an identical one that came
// together; the process lives on and the same query then answers 200.
func TestPanickingQueryRunIs500(t *testing.T) {
	e := newEnv(t)
	ch := e.withPanickingCH()
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	body := map[string]any{"project_id": tn.project.ID, "fields": []string{"spend"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}}
	ch.queries.Store(true)
	var wg sync.WaitGroup
	answers := make([]response, 2)
	for i := range answers {
		wg.Add(1)
		go func() { defer wg.Done(); answers[i] = e.do("POST", "/v3/query", body, bearer(tn.readKey)...) }()
	}
	wg.Wait()
	for _, r := range answers {
		wantError(t, r, 500, "api_error", "internal_error")
		if strings.Contains(string(r.Body), injectedPanic) {
			t.Fatalf("the panic leaks to the client: %s", r.Body)
		}
	}
	if !strings.Contains(e.logs.String(), "panic: "+injectedPanic) {
		t.Fatalf("the panic is not logged:\n%s", e.logs)
	}
	ch.queries.Store(false)
	if r := e.do("POST", "/v3/query", body, bearer(tn.readKey)...); r.Status != 200 {
		t.Fatalf("the query once the bug is gone: %d %s", r.Status, r.Body)
	}
}

// waitFor polls cond until it holds, failing the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %s within a minute", what)
		}
	}
}
