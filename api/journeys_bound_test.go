package api_test

import (
	"testing"
	"time"

	"mtk/ingest/events"
	"mtk/ingest/outbox"
)

// The journey outbox's bound refuses, with 503 and Retry-After, an event whose touch and possible
// lead merges would pass it (one row per lead its identifiers may merge) and an order webhook
// whose journey row would, storing nothing of either; an event that writes no journey row still
// passes, and the drain makes room at once.
func TestJourneyOutboxBound(t *testing.T) {
	e := newEnv(t)
	e.eventsConfig = events.Config{Bounds: outbox.Bounds{Journeys: 2}}
	e.rebuild()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	key := a.custom.WebhookKey
	touch := func(lead map[string]any) map[string]any {
		return map[string]any{"utm": attributedUTM, "config": map[string]any{"name": "PageView"}, "lead": lead}
	}
	refused := func(r response) {
		t.Helper()
		wantError(t, r, 503, "api_error", "service_unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Fatalf("no Retry-After: %v", r.Header)
		}
	}
	journeyRows := func() int { return e.pgCount(t, "SELECT count(*) FROM journey_outbox") }
	if r := e.event(touch(map[string]any{"email": "ana@x.com"}), bearer(a.key)...); r.Status != 200 {
		t.Fatalf("a touch: %d %s", r.Status, r.Body)
	}
	// Its touch and the lead its phone may merge: 2 rows, 1 too many.
	refused(e.event(touch(map[string]any{"email": "bia@x.com", "phone": "+55 11 99999-0000"}), bearer(a.key)...))
	if n := e.pgCount(t, "SELECT count(*) FROM leads WHERE email = 'bia@x.com'"); n != 0 || journeyRows() != 1 {
		t.Fatalf("a refused event stored %d leads, %d journey rows", n, journeyRows())
	}
	if r := e.event(touch(map[string]any{"email": "bia@x.com"}), bearer(a.key)...); r.Status != 200 {
		t.Fatalf("a touch up to the bound: %d %s", r.Status, r.Body)
	}
	refused(e.event(touch(map[string]any{"email": "carla@x.com"}), bearer(a.key)...))
	noTouch := map[string]any{"config": map[string]any{"name": "PageView"}, "lead": map[string]any{"email": "dora@x.com"}}
	if r := e.event(noTouch, bearer(a.key)...); r.Status != 200 {
		t.Fatalf("an event without a touch, journey outbox full: %d %s", r.Status, r.Body)
	}
	sale := order("tx-1", "approved", 1000, e.clock.Now().Add(-time.Hour))
	refused(e.webhook(key, sale))
	if n := e.pgCount(t, "SELECT count(*) FROM orders"); n != 0 || journeyRows() != 2 {
		t.Fatalf("a refused webhook stored %d orders, %d journey rows", n, journeyRows())
	}
	e.drain()
	if r := e.webhook(key, sale); r.Status != 200 || journeyRows() != 1 {
		t.Fatalf("retry after the drain: %d %s, %d journey rows", r.Status, r.Body, journeyRows())
	}
}
