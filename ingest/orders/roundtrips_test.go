package orders

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/attribution"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/platform"
)

// tripCounter counts the round trips a pool sends PostgreSQL: a statement sent alone is one, a
// batch (pipelined) is one.
type tripCounter struct{ n atomic.Int64 }

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// An order state costs at most 3 PostgreSQL round trips, the transaction's, whether the state
// creates the order and its customer's lead, updates it for a lead that exists, is a repeat that
// changes nothing, or names nobody: the webhook key's connection and project are cached (for
// platform.KeyCacheTTL, forgotten when a change is announced), and so are the project's ad
// entities. A cold key (its first webhook on a process, or its first after the TTL or an
// announced change) reads them first: one round trip more, 4, the contract's bound.
func TestOrderStateRoundTrips(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	p, conn := newCustomConnection(t, platform.New(pg.Pool, clk))
	trips := &tripCounter{}
	cfg := pg.Pool.Config()
	cfg.ConnConfig.Tracer = trips
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	resolver := attribution.New(pool, clk, time.Hour)
	if _, err := resolver.Entities(ctx, p.ID); err != nil { // read once a minute, not per webhook
		t.Fatal(err)
	}
	s := New(pool, platform.New(pool, clk).Connections, resolver, clk, outbox.Bounds{})
	value := func(v int64) *int64 { return &v }
	state := func(id, status string, updated time.Duration, c Customer) Input {
		return Input{Transaction: &Transaction{ID: id, Status: status, Value: value(1000), CreatedAt: "2026-03-10T12:00:00Z",
			UpdatedAt: clk.Now().Add(updated).Format(time.RFC3339), Customer: c}}
	}
	ana := Customer{Email: "ana@x.com"}
	for i, c := range []struct {
		name string
		in   Input
	}{
		{"a new order of a new customer, its key cold", state("o-1", StatusPending, 0, ana)},
		{"its approval", state("o-1", StatusApproved, time.Minute, ana)},
		{"a repeat of the approval", state("o-1", StatusApproved, time.Minute, ana)},
		{"a refund without customer", state("o-1", StatusRefunded, 2*time.Minute, Customer{})},
		{"another order of the customer", state("o-2", StatusApproved, 0, ana)},
		{"an order naming nobody", state("o-3", StatusApproved, 0, Customer{})},
	} {
		before := trips.n.Load()
		if err := s.Upsert(ctx, conn.WebhookKey, c.in); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := trips.n.Load() - before
		t.Logf("%s: %d round trips", c.name, n)
		want := int64(3)
		if i == 0 {
			want = 4
		}
		if n > want {
			t.Errorf("%s: %d round trips, want at most %d", c.name, n, want)
		}
	}
	var status, customerType string
	if err := pg.Pool.QueryRow(ctx, "SELECT status, customer_type FROM orders WHERE transaction_id = 'o-1'").
		Scan(&status, &customerType); err != nil || status != StatusRefunded || customerType != "new" {
		t.Fatalf("o-1 stored %s, %s (%v): want refunded, new", status, customerType, err)
	}
}
