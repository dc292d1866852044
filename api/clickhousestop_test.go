package api_test

import (
	"context"
	"syscall"
	"testing"

	"mtk/facts"
	"mtk/internal/testenv"
)

// Acknowledging an event or an order needs PostgreSQL only: with the test's own ClickHouse
// stopped (SIGSTOP), an order whose lead has an event after the order's created_at and an event
// are answered 200; once ClickHouse is continued their rows land exactly once, the order's with
// the traffic source of its lead's latest event before it.
func TestOrderAndEventWithClickHouseStopped(t *testing.T) {
	own := testenv.StartClickHouse(t)
	t.Setenv("MTK_CLICKHOUSE_URL", own.URL)
	t.Setenv("MTK_CH_HTTP_PORT", own.HTTPPort)
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now() // 15:00; order() is created at 12:00
	send := func(id string, minutesAgo int64, ua int, page, referrer string) {
		t.Helper()
		body := map[string]any{"event_id": id, "config": map[string]any{"name": "PageView"}, "source": "website",
			"timestamp": now.Unix() - minutesAgo*60, "lead": map[string]any{"email": "buyer@x.com"},
			"page": map[string]any{"url": page, "referrer": referrer}}
		if r := e.event(body, append(bearer(a.key), "User-Agent", browserUAs[ua].ua)...); r.Status != 200 {
			t.Fatalf("event %s: %d %s", id, r.Status, r.Body)
		}
	}
	send("before", 240, 2, "https://acme.example/promo?x=1", "https://l.facebook.com/") // 11:00, an iPhone
	send("after", 60, 0, "https://acme.example/conta", "https://www.google.com/")       // 14:00, after the order
	e.drain()

	if err := own.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := true
	defer func() {
		if stopped {
			_ = own.Process.Signal(syscall.SIGCONT)
		}
	}()
	tx := order("o-stopped", "approved", 5000, now)
	if r := e.webhook(a.custom.WebhookKey, tx); r.Status != 200 {
		t.Fatalf("order with ClickHouse stopped: %d %s", r.Status, r.Body)
	}
	send("during", 30, 1, "https://acme.example/", "")
	if err := own.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	stopped = false
	e.drain()
	if r := e.webhook(a.custom.WebhookKey, tx); r.Status != 200 { // a client's retry changes nothing
		t.Fatalf("the order again: %d %s", r.Status, r.Body)
	}
	e.drain()

	ctx := context.Background()
	var orders, revenue int64
	var host, landing, device string
	if err := e.ch.QueryRow(ctx, `SELECT toInt64(sum(tx_count_total)), toInt64(sum(tx_revenue)), any(referrer_host), any(landing_path), any(device)
		FROM business_raw WHERE project_id = ? AND kind = 'order'`, a.project.ID).Scan(&orders, &revenue, &host, &landing, &device); err != nil {
		t.Fatal(err)
	}
	if orders != 1 || revenue != 5000*facts.MicrosPerMinor || host != "l.facebook.com" || landing != "/promo" || device != "mobile" {
		t.Fatalf("the order's business rows: %d orders, revenue %d, from %q %q %q", orders, revenue, host, landing, device)
	}
	if got := e.chSum(t, a.project.ID, "tx_count"); got != 1 {
		t.Fatalf("the order's facts: tx_count %d, want 1", got)
	}
	var events uint64
	if err := e.ch.QueryRow(ctx, "SELECT count() FROM events WHERE project_id = ? AND event_id = 'during'", a.project.ID).Scan(&events); err != nil || events != 1 {
		t.Fatalf("the event sent while ClickHouse was stopped: %d rows, %v", events, err)
	}
}
