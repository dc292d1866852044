package outbox_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/credits"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// A credit drainer killed between its insert into credits_raw and its settle, and run again,
// never doubles a credit; each row lands its old journey's credits negated and its new one's, and
// moves the data versions of every local day its rows land on, on both dates.
func TestCreditDrainerCrash(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	ad := facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1", AdID: "a1"}
	// Sold at 23:30 on 9 March in São Paulo (02:30 UTC on the 10th) after a touch on 2 March; then
	// refunded.
	sold := facts.OrderJourney{Time: time.Date(2026, 3, 10, 2, 30, 0, 0, time.UTC), Currency: "BRL",
		Values: facts.Values{facts.TxRevenue: 5_000_000, facts.TxCount: 1, facts.TxCountTotal: 1}, Touches: []facts.Touch{{Time: time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC), Entity: ad}}}
	back := sold
	back.Values = facts.Values{facts.TxCountTotal: 1, facts.TxCountRefunded: 1}
	zone := "America/Sao_Paulo"
	if err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		if err := credits.QueueChanges(b, []credits.Change{{ProjectID: "prj_1", New: &credits.ZonedJourney{Zone: zone, Journey: sold}},
			{ProjectID: "prj_1", Old: &credits.ZonedJourney{Zone: zone, Journey: sold}, New: &credits.ZonedJourney{Zone: zone, Journey: back}}},
			clk.Now()); err != nil {
			return err
		}
		return tx.SendBatch(ctx, b).Close()
	}); err != nil {
		t.Fatal(err)
	}
	conn, err := pg.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := credits.Stream.Load(ctx, conn, 10, outbox.Partition{Count: 1})
	conn.Release()
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := loaded.Changes()
	days := []facts.Change{facts.FactsOn("prj_1", time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)),
		facts.FactsOn("prj_1", time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC))}
	if !slices.Equal(changes, days) {
		t.Fatalf("changes %v, want %v", changes, days)
	}

	d := credits.NewDrainer(pg.Pool, ch.Conn, clk, nil)
	outbox.SetCrash(d, killAt("mark"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("killed run: %v", err)
	}
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 2 {
		t.Fatalf("rerun: %d %v", n, err)
	}
	var revenue, refunded, total int64
	var rows uint64
	if err := ch.Conn.QueryRow(ctx, `SELECT toInt64(sum(tx_revenue)), toInt64(sum(tx_count_refunded)), toInt64(sum(tx_count_total)),
		count() FROM credits_raw WHERE project_id = 'prj_1'`).Scan(&revenue, &refunded, &total, &rows); err != nil {
		t.Fatal(err)
	}
	// Every model on both dates under both touch sets: 20 times the refunded order, in count units.
	// The refund lands its deltas netted (facts.NetCredits): one row per key, not two.
	loc, _ := time.LoadLocation(zone)
	refund := facts.NetCredits([]facts.CreditBatch{{ProjectID: "prj_1", Zone: loc, OutboxID: 2, Credits: facts.NegateCredits(facts.Credits(sold))},
		{ProjectID: "prj_1", Zone: loc, OutboxID: 2, Credits: facts.Credits(back)}})
	wantRows := uint64(len(facts.Credits(sold)) + len(refund[0].Credits))
	want := int64(2*len(facts.CreditModels)*len(facts.TouchSets)) * facts.CountUnit
	if revenue != 0 || refunded != want || total != want || rows != wantRows {
		t.Fatalf("credits_raw: revenue %d refunded %d total %d in %d rows, want 0, %d, %d in %d", revenue, refunded, total, rows,
			want, want, wantRows)
	}
	var left int
	if err := pg.Pool.QueryRow(ctx, "SELECT (SELECT count(*) FROM credit_outbox) + (SELECT count(*) FROM outbox_attempts)").Scan(&left); err != nil || left != 0 {
		t.Fatalf("left in PostgreSQL: %d (%v)", left, err)
	}
	var versions int
	if err := pg.Pool.QueryRow(ctx, "SELECT count(*) FROM data_versions WHERE project_id = 'prj_1' AND kind = 'facts'").Scan(&versions); err != nil || versions != 2 {
		t.Fatalf("%d days' versions moved (%v), want 2", versions, err)
	}
}
