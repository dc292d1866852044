package orders

import (
	"context"
	"errors"
	"testing"
	"time"

	"mtk/ingest/attribution"
	"mtk/ingest/outbox"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/platform"
)

// newCustomConnection makes a workspace, a project and its custom (webhook) connection.
func newCustomConnection(t *testing.T, store *platform.Services) (platform.Project, platform.Connection) {
	t.Helper()
	ctx := context.Background()
	ws, err := store.Workspaces.CreateWorkspace(ctx, "w", platform.TierDefault)
	if err != nil {
		t.Fatal(err)
	}
	p, err := store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "p", Currency: "BRL", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: platform.KindCustom, Name: "Checkout"})
	if err != nil {
		t.Fatal(err)
	}
	return p, conn
}

// A webhook whose key's connection was cached and then deleted (by another process, before this
// one heard of it: here it never listens) is refused as an unknown key, 401, not a 500 of the
// order's insert.
func TestOrderOfADeletedConnection(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	store := platform.New(pg.Pool, clk)
	_, conn := newCustomConnection(t, store)
	s := New(pg.Pool, store.Connections, attribution.New(pg.Pool, clk, time.Hour), clk, outbox.Bounds{})
	value := int64(1000)
	in := func(id string) Input {
		return Input{Transaction: &Transaction{ID: id, Status: StatusApproved, Value: &value, CreatedAt: "2026-03-10T12:00:00Z",
			Customer: Customer{Email: "ana@x.com"}}}
	}
	if err := s.Upsert(ctx, conn.WebhookKey, in("o-1")); err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Pool.Exec(ctx, "DELETE FROM connections WHERE id = $1", conn.ID); err != nil {
		t.Fatal(err)
	}
	var e *apperr.Error
	if err := s.Upsert(ctx, conn.WebhookKey, in("o-2")); !errors.As(err, &e) || e.Code != apperr.CodeInvalidAPIKey {
		t.Fatalf("an order for a deleted connection: %v, want invalid_api_key", err)
	}
}
