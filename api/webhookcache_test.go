package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/ids"
	"mtk/platform"
)

// A webhook key's connection and project are cached (platform.KeyCacheTTL), and the env's clock
// stands still, so the TTL never passes here: each change below, made by hand through another
// pool (as an operator or another replica would: no endpoint makes them), shows on the next
// webhooks only because the server heard its announcement.
func TestOrderWebhookHearsConnectionChanges(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	ctx := context.Background()
	if err := e.store.Containers.LinkPixel(ctx, a.v3.ID, platform.LinkedPixel{Source: platform.KindAlpha, ID: "px-1", Name: "px"}); err != nil {
		t.Fatal(err)
	}
	otherPool, err := pgxpool.New(ctx, e.cfg.PostgresURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(otherPool.Close)
	other := platform.New(otherPool, e.clock)
	byHand := func(sql string, args ...any) {
		t.Helper()
		if _, err := other.Pool().Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	// heard sends webhooks (each a new order, made by next) until seen holds of the answer.
	heard := func(t *testing.T, what string, key string, next func(id string) map[string]any, seen func(response, string) bool) {
		t.Helper()
		start := time.Now()
		waitFor(t, what, func() bool {
			id := "tx-" + what + "-" + ids.Random(6)
			return seen(e.webhook(key, next(id)), id)
		})
		t.Logf("%s: heard after %v", what, time.Since(start).Round(time.Millisecond))
	}
	now := e.clock.Now()
	approved := func(id string) map[string]any { return order(id, "approved", 1000, now) }
	ok := func(t *testing.T, key string) {
		t.Helper()
		if r := e.webhook(key, approved("tx-warm-"+ids.Random(6))); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	}
	// refused: the answer is the contract's 401 for an unknown key (never a 500, even for a webhook
	// that read the connection from the cache just before it was deleted).
	refused := func(t *testing.T) func(response, string) bool {
		return func(r response, _ string) bool {
			if r.Status == 200 {
				return false
			}
			wantError(t, r, 401, "authentication_error", "invalid_api_key")
			return true
		}
	}

	t.Run("currency and time zone", func(t *testing.T) {
		ok(t, a.custom.WebhookKey)
		byHand("UPDATE projects SET currency = 'USD', timezone = 'Asia/Tokyo' WHERE id = $1", a.project.ID)
		noCurrency := func(id string) map[string]any { o := approved(id); delete(o, "currency"); return o }
		heard(t, "currency", a.custom.WebhookKey, noCurrency, func(r response, id string) bool {
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			return e.pgCount(t, "SELECT count(*) FROM orders WHERE transaction_id = $1 AND currency = 'USD'", id) == 1
		})
		// The order's rows travel to ClickHouse with its project's zone (their local hour and day).
		if n := e.pgCount(t, `SELECT count(*) FROM fact_outbox WHERE project_id = $1 AND kind = 'order'
			AND timezone = 'Asia/Tokyo'`, a.project.ID); n == 0 {
			t.Fatal("the order after the change has no business row in the project's new zone")
		}
	})

	t.Run("tracking", func(t *testing.T) {
		purchases := func(id string) int {
			return e.pgCount(t, "SELECT count(*) FROM conversion_outbox WHERE event_name = 'Purchase' AND event_id = $1", id)
		}
		id := "tx-tracked-" + ids.Random(6)
		if r := e.webhook(a.custom.WebhookKey, approved(id)); r.Status != 200 || purchases(id) != 1 {
			t.Fatalf("an approved order with tracking on: %d %s, %d Purchases", r.Status, r.Body, purchases(id))
		}
		byHand("UPDATE connections SET tracking_enabled = false WHERE id = $1", a.custom.ID)
		heard(t, "tracking-off", a.custom.WebhookKey, approved, func(r response, id string) bool {
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			return purchases(id) == 0
		})
		byHand("UPDATE connections SET tracking_enabled = true WHERE id = $1", a.custom.ID)
		heard(t, "tracking-on", a.custom.WebhookKey, approved, func(r response, id string) bool {
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			return purchases(id) == 1
		})
	})

	t.Run("key rotated", func(t *testing.T) {
		old, rotated := a.custom.WebhookKey, "whk_"+ids.Random(20)
		ok(t, old)
		byHand("UPDATE connections SET webhook_key = $2 WHERE id = $1", a.custom.ID, rotated)
		heard(t, "old-key", old, approved, refused(t))
		ok(t, rotated)
	})

	t.Run("connection deleted", func(t *testing.T) {
		c, err := other.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: a.project.ID, Kind: platform.KindCustom, Name: "Shop 2"})
		if err != nil {
			t.Fatal(err)
		}
		ok(t, c.WebhookKey)
		byHand("DELETE FROM connections WHERE id = $1", c.ID)
		heard(t, "deleted", c.WebhookKey, approved, refused(t))
	})
}
