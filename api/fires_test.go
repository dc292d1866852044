package api_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"mtk/ingest/fires"
	"mtk/platform"
)

// serverTrigger adds a server-side trigger with its rule, as the dashboard does.
func (e *env) serverTrigger(containerID string, rule platform.TriggerRule, event string, alpha platform.AlphaEvent) platform.Trigger {
	e.t.Helper()
	tr, err := e.store.Containers.AddPlatformTrigger(context.Background(), containerID, platform.TriggerInput{
		Name: event, Config: platform.TriggerConfig{Trigger: rule, Name: event, Alpha: alpha}})
	if err != nil {
		e.t.Fatal(err)
	}
	return tr
}

// firings counts, once the outboxes are drained, the stored events named name of each event id.
func (e *env) firings(t *testing.T, projectID, name string) map[string]uint64 {
	t.Helper()
	e.drain()
	rows, err := e.ch.Query(context.Background(), "SELECT event_id, count() FROM events WHERE project_id = ? AND name = ? GROUP BY event_id",
		projectID, name)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]uint64{}
	for rows.Next() {
		var id string
		var n uint64
		if err := rows.Scan(&id, &n); err != nil {
			t.Fatal(err)
		}
		out[id] = n
	}
	return out
}

// A checkout trigger fires once per order, on its first approval: repeated webhooks, an
// approved→refunded→approved flip, a refund arriving before its approval and concurrent
// duplicates each fire one event, and one conversion per pixel and event name.
func TestCheckoutTriggerFiresOnce(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	ctx := context.Background()
	if err := e.store.Containers.LinkPixel(ctx, a.v3.ID, platform.LinkedPixel{Source: platform.KindAlpha, ID: "px-1", Name: "px"}); err != nil {
		t.Fatal(err)
	}
	rule := platform.TriggerRule{Type: platform.TriggerCheckoutApproved}
	purchase := e.serverTrigger(a.v3.ID, rule, "checkout_approved", platform.AlphaEvent{Name: "Purchase"})
	custom := e.serverTrigger(a.v3.ID, rule, "checkout_custom", platform.AlphaEvent{Name: "ApprovedCheckout", TrackCustom: true})
	key, t0 := a.custom.WebhookKey, e.clock.Now().Add(-time.Hour)
	send := func(id, status string, at time.Time) {
		t.Helper()
		if r := e.webhook(key, order(id, status, 12990, at)); r.Status != 200 {
			t.Fatalf("%s %s: %d %s", id, status, r.Status, r.Body)
		}
	}
	// Repeated, then flipped back and forth.
	send("tx-a", "approved", t0)
	send("tx-a", "approved", t0)
	send("tx-a", "refunded", t0.Add(time.Minute))
	send("tx-a", "approved", t0.Add(2*time.Minute))
	// Reordered: the refund arrives before the approval it follows, and the approval repeats.
	send("tx-b", "refunded", t0.Add(time.Minute))
	send("tx-b", "approved", t0)
	send("tx-b", "approved", t0)
	// Never approved.
	send("tx-c", "pending", t0)
	send("tx-c", "failed", t0.Add(time.Minute))
	// The same approval, concurrently.
	var wg sync.WaitGroup
	for range 6 {
		wg.Go(func() { send("tx-d", "approved", t0) })
	}
	wg.Wait()

	conn := a.custom.ID
	for _, tr := range []platform.Trigger{purchase, custom} {
		want := map[string]uint64{}
		for _, tx := range []string{"tx-a", "tx-b", "tx-d"} {
			want[fires.EventID(tr.ID, "order:"+conn+":"+tx)] = 1
		}
		if got := e.firings(t, a.project.ID, tr.Config.Name); !equalCounts(got, want) {
			t.Errorf("%s fired %v, want %v", tr.Config.Name, got, want)
		}
	}
	// The trigger's Purchase is the order's Purchase (same pixel, name and event id): one each.
	for name, want := range map[string]int{"Purchase": 3, "ApprovedCheckout": 3} {
		if n := e.pgCount(t, `SELECT count(*) FROM conversion_outbox WHERE pixel_id = 'px-1' AND event_name = $1
			AND event_id IN ('tx-a', 'tx-b', 'tx-d')`, name); n != want {
			t.Errorf("%d %s conversions, want %d", n, name, want)
		}
	}
	if n := e.pgCount(t, "SELECT count(*) FROM conversion_outbox WHERE pixel_id = 'px-1'"); n != 6 {
		t.Errorf("%d conversions in all, want 6", n)
	}
}

func equalCounts(a, b map[string]uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// A tracking-link trigger fires one event per click, with the click's UTM; a keyword trigger one
// per message text holding its keyword, whatever its case and accents, however often decoded.
func TestLinkAndKeywordTriggersFire(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	click := e.serverTrigger(a.v3.ID, platform.TriggerRule{Type: platform.TriggerTrackingLink}, "link_click", platform.AlphaEvent{Name: "Contact"})
	promo := e.serverTrigger(a.v3.ID, platform.TriggerRule{Type: platform.TriggerWhatsAppKeyword, Keyword: "PROMOCAO"},
		"whatsapp_promo", platform.AlphaEvent{Name: "Lead"})
	link := e.do("POST", "/v3/tracking/links", map[string]any{"name": "Promo", "phone": "5511912345678",
		"message": "Olá! Quero a Promoção", "utm": map[string]string{"utm_source": "alpha", "utm_campaign": "Sale|123"}}, bearer(a.key)...).JSON(t)
	sent := e.follow("/l/" + link["slug"].(string)).Query().Get("text")
	e.follow("/l/" + link["slug"].(string) + "?utm_content=Ad|9")
	if got := e.firings(t, a.project.ID, click.Config.Name); len(got) != 2 {
		t.Fatalf("2 clicks fired %v", got)
	}
	var content string
	if err := e.ch.QueryRow(context.Background(), "SELECT max(utm_content) FROM events WHERE project_id = ? AND name = ?",
		a.project.ID, click.Config.Name).Scan(&content); err != nil || content != "Ad|9" {
		t.Fatalf("click UTM %q %v", content, err)
	}

	texts := []string{sent, "quero a PROMOÇÃO de hoje", "promocao", "promoção!", "nada a ver", "PROMO"}
	e.decode(a.readOnly, texts...)
	e.decode(a.readOnly, texts...) // decoded again: fires nothing more
	got := e.firings(t, a.project.ID, promo.Config.Name)
	if len(got) != 4 {
		t.Fatalf("keyword fired %d events, want 4: %v", len(got), got)
	}
	for id, n := range got {
		if n != 1 {
			t.Fatalf("event %s stored %d times", id, n)
		}
	}
	var source, campaign string
	if err := e.ch.QueryRow(context.Background(), "SELECT source, utm_campaign FROM events WHERE project_id = ? AND name = ? AND utm_campaign != ''",
		a.project.ID, promo.Config.Name).Scan(&source, &campaign); err != nil || source != "whatsapp" || campaign != "Sale|123" {
		t.Fatalf("tracked message's event: %q %q %v", source, campaign, err)
	}
}
