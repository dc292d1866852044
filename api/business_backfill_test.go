package api_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"mtk/facts"
	"mtk/ingest/events"
	"mtk/ingest/orders"
	"mtk/internal/jobs"
)

// bizSnapshot is every business_raw key of a project with its non-zero sums, one sorted line each.
func (e *env) bizSnapshot(t *testing.T, project string) []string {
	t.Helper()
	keys := strings.Join(facts.BizKeyColumns, ", ")
	sums := "toInt64(sum(" + strings.ReplaceAll(facts.Columns(facts.BusinessFamily.Measures, ""), ", ", ")), toInt64(sum(") + "))"
	rows, err := e.ch.Query(context.Background(), `SELECT toString(tuple(toString(day), `+keys+`, `+sums+`))
		FROM business_raw WHERE project_id = ? GROUP BY day, `+keys+` ORDER BY day, `+keys, project)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(line, ",0,0,0,0,0,0,0,0,0,0,0)") {
			out = append(out, line)
		}
	}
	slices.Sort(out)
	return out
}

// A database filled before the business facts (events in ClickHouse's events table, orders
// without business rows), backfilled, holds the same business rows as one filled after; a
// backfill stopped midway and run again, and one run twice, change nothing more.
func TestBusinessBackfill(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	e.productionTraffic(a)
	filledAfter := e.bizSnapshot(t, a.project.ID)
	if len(filledAfter) < 10 {
		t.Fatalf("the traffic wrote only %d business keys", len(filledAfter))
	}

	// The same data as the code before the business facts left it.
	for _, table := range []string{"business_raw", "business_hourly", "business_daily"} {
		if err := e.ch.Exec(ctx, "TRUNCATE TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	var lastEvent uint64
	if err := e.ch.QueryRow(ctx, "SELECT max(outbox_id) FROM events").Scan(&lastEvent); err != nil || lastEvent == 0 {
		t.Fatalf("events' outbox ids: %d %v", lastEvent, err)
	}
	pool := e.store.Pool()
	if _, err := pool.Exec(ctx, `UPDATE orders SET business = false, customer_type = '', referrer_host = '',
		landing_path = '', device = ''`); err != nil {
		t.Fatal(err)
	}
	// The leads are older than both migrations and have no stored touch: the touch backfill reads
	// their events back before the orders' rows are written.
	if _, err := pool.Exec(ctx, "UPDATE business_backfill SET events_before = $1, migrated_at = now()", int64(lastEvent)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE touch_backfill SET events_before = $1, migrated_at = now(), done = false", int64(lastEvent)); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "DELETE FROM lead_touches"); err != nil {
		t.Fatal(err)
	}
	if got := e.bizSnapshot(t, a.project.ID); len(got) != 0 {
		t.Fatalf("business rows before the backfill: %v", got)
	}

	// A backfill stopped after one step of each kind (committed, not yet drained), then run whole.
	tb := &events.TouchBackfill{Pool: pool, CH: e.ch}
	if read, finished, err := tb.Step(ctx, 2); err != nil || read != 2 || finished {
		t.Fatalf("first touches step: %d read, finished %v, %v", read, finished, err)
	}
	if _, _, err := e.sys.Orders.BackfillBusiness(ctx, 2); !errors.Is(err, orders.ErrTouchesWaiting) {
		t.Fatalf("orders before the touches: %v", err)
	}
	bf := &events.Backfill{Pool: pool, CH: e.ch, Resolver: e.resolver, Projects: e.store.Projects, Now: e.clock.Now}
	if read, total, finished, err := bf.Step(ctx, 3); err != nil || read != 3 || total != 3 || finished {
		t.Fatalf("first events step: %d read, %d in all, finished %v, %v", read, total, finished, err)
	}
	written, evs, err := e.sys.BackfillBusiness(ctx, 2)
	if err != nil || written != 4 || evs != 7 { // 4 orders, 10 stored events (pv-2 once)
		t.Fatalf("the rerun: %d orders, %d events, %v", written, evs, err)
	}
	for _, progress := range []string{`"msg":"backfill business: touches","read":2,"finished":false`,
		`"msg":"backfill business: orders","written":4,"left":0`, `"msg":"backfill business: events","read":10,"finished":true`} {
		if !strings.Contains(e.logs.String(), progress) {
			t.Errorf("no progress line %s in the log:\n%s", progress, e.logs)
		}
	}
	if got := e.bizSnapshot(t, a.project.ID); !slices.Equal(got, filledAfter) {
		t.Fatalf("backfilled:\n%s\nfilled after the change:\n%s", strings.Join(got, "\n"), strings.Join(filledAfter, "\n"))
	}
	if written, evs, err := e.sys.BackfillBusiness(ctx, 2); err != nil || written != 0 || evs != 0 {
		t.Fatalf("a second backfill: %d orders, %d events, %v", written, evs, err)
	}
	e.drain()
	if got := e.bizSnapshot(t, a.project.ID); !slices.Equal(got, filledAfter) {
		t.Fatalf("after a second backfill:\n%s", strings.Join(got, "\n"))
	}
	// Finished, the backfill has recorded it: the job reads the record once, then does nothing at
	// all (without the record a run fails, as `mtk backfill business` does).
	if n := e.pgCount(t, "SELECT count(*) FROM business_backfill WHERE finished_at IS NOT NULL"); n != 1 {
		t.Fatalf("%d finished records, want 1", n)
	}
	runner, err := jobs.New(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), e.sys.Jobs())
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.RunNow("business-backfill"); err != nil {
		t.Fatalf("the job once finished: %v", err)
	}
	if _, err := pool.Exec(ctx, "DELETE FROM business_backfill"); err != nil {
		t.Fatal(err)
	}
	if err := runner.RunNow("business-backfill"); err != nil {
		t.Fatalf("the job after it saw the record: %v", err)
	}
	if _, _, err := e.sys.BackfillBusiness(ctx, 2); err == nil {
		t.Fatal("a backfill without its record ran")
	}
	// The rollups hold what the raw rows hold.
	var raw, daily int64
	if err := e.ch.QueryRow(ctx, `SELECT (SELECT toInt64(sum(tx_revenue + tx_units + page_views + leads)) FROM business_raw),
		(SELECT toInt64(sum(tx_revenue + tx_units + page_views + leads)) FROM business_daily)`).Scan(&raw, &daily); err != nil || raw != daily || raw == 0 {
		t.Fatalf("raw %d, daily %d, %v", raw, daily, err)
	}
}

// An order stored before the business facts and changed before the backfill reached it writes
// only its new state's rows (nothing to negate), and the backfill then leaves it alone.
func TestBusinessOldOrderChangedBeforeBackfill(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	key := a.custom.WebhookKey
	t0 := e.clock.Now().Add(-time.Hour)
	if r := e.webhook(key, order("tx-old", "approved", 1000, t0)); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	for _, table := range []string{"business_raw", "business_hourly", "business_daily"} {
		if err := e.ch.Exec(ctx, "TRUNCATE TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.store.Pool().Exec(ctx, "UPDATE orders SET business = false"); err != nil {
		t.Fatal(err)
	}
	refund := order("tx-old", "refunded", 1000, t0.Add(time.Minute))
	delete(refund, "utm")
	if r := e.webhook(key, refund); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	if orders, _, err := e.sys.BackfillBusiness(ctx, 10); err != nil || orders != 0 {
		t.Fatalf("backfill: %d orders, %v", orders, err)
	}
	got := e.bizTotals(t, a.project.ID, "")
	want := facts.Values{facts.TxCountTotal: 1, facts.TxCountRefunded: 1}
	if got[facts.BizOrder] != want || got[facts.BizItem] != want {
		t.Fatalf("business rows %v, want the refund's %v", got, want)
	}
	var negative uint64
	if err := e.ch.QueryRow(ctx, "SELECT count() FROM business_raw WHERE tx_count_total < 0").Scan(&negative); err != nil || negative != 0 {
		t.Fatalf("%d negated rows, %v", negative, err)
	}
}

// An order of a lead older than the touch history (its events' touches not yet read back from
// ClickHouse) is answered and stored with PostgreSQL alone: its facts are written, its business
// rows wait, and the business backfill writes them, with the touch of the lead's latest event
// before the order, once it has read the lead's events back.
func TestOrderOfAnOldLeadWaitsForTheTouchBackfill(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now() // 15:00; order() is created at 12:00
	for _, ev := range []struct {
		id         string
		minutesAgo int64
		ua         int
		page, ref  string
	}{{"before", 240, 2, "https://acme.example/promo", "https://l.facebook.com/"}, {"after", 60, 0, "https://acme.example/conta", ""}} {
		body := map[string]any{"event_id": ev.id, "config": map[string]any{"name": "PageView"}, "source": "website",
			"timestamp": now.Unix() - ev.minutesAgo*60, "lead": map[string]any{"email": "buyer@x.com"},
			"page": map[string]any{"url": ev.page, "referrer": ev.ref}}
		if r := e.event(body, append(bearer(a.key), "User-Agent", browserUAs[ev.ua].ua)...); r.Status != 200 {
			t.Fatalf("event %s: %d %s", ev.id, r.Status, r.Body)
		}
	}
	e.drain()
	var lastEvent uint64
	if err := e.ch.QueryRow(ctx, "SELECT max(outbox_id) FROM events").Scan(&lastEvent); err != nil || lastEvent == 0 {
		t.Fatalf("events' outbox ids: %d %v", lastEvent, err)
	}
	// The lead and its events as they were before the touch history: no touch stored.
	pool := e.store.Pool()
	if _, err := pool.Exec(ctx, "DELETE FROM lead_touches"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE touch_backfill SET events_before = $1, migrated_at = now(), done = false", int64(lastEvent)); err != nil {
		t.Fatal(err)
	}

	if r := e.webhook(a.custom.WebhookKey, order("o-old", "approved", 5000, now)); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	e.drain()
	orderRows := func() (n int64, host, landing, device string) {
		t.Helper()
		if err := e.ch.QueryRow(ctx, `SELECT toInt64(sum(tx_count_total)), any(referrer_host), any(landing_path), any(device)
			FROM business_raw WHERE project_id = ? AND kind = 'order'`, a.project.ID).Scan(&n, &host, &landing, &device); err != nil {
			t.Fatal(err)
		}
		return n, host, landing, device
	}
	if n, _, _, _ := orderRows(); n != 0 || e.pgCount(t, "SELECT count(*) FROM orders WHERE NOT business") != 1 {
		t.Fatalf("before the backfill: %d business orders, want the order waiting", n)
	}
	if got := e.chSum(t, a.project.ID, "tx_count"); got != 1 {
		t.Fatalf("the order's facts: tx_count %d, want 1", got)
	}
	if written, _, err := e.sys.BackfillBusiness(ctx, 100); err != nil || written != 1 {
		t.Fatalf("backfill: %d orders, %v", written, err)
	}
	if n, host, landing, device := orderRows(); n != 1 || host != "l.facebook.com" || landing != "/promo" || device != "mobile" {
		t.Fatalf("after the backfill: %d orders from %q %q %q", n, host, landing, device)
	}
	if got := e.pgCount(t, "SELECT count(*) FROM lead_touches"); got != 2 {
		t.Fatalf("%d touches read back, want 2", got)
	}
}
