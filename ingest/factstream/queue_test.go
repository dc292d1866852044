package factstream

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/internal/testenv"
)

// QueueFacts writes every row with its values, ids in the order given, in one statement.
func TestQueueFactsKeepsOrderAndValues(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	var rows []FactRow
	for i := range 5 {
		rows = append(rows, FactRow{ProjectID: "prj_1", TimeZone: "UTC", Time: now.Add(-time.Duration(i) * time.Minute),
			AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1", AdsetID: "s1", AdID: "a1"},
			Currency: "BRL", Values: facts.Values{facts.PageViews: int64(i), facts.Leads: 1, facts.InitiateCheckout: 2, facts.TxRevenue: int64(1000 * i), facts.TxCount: 3, facts.TxCountTotal: 4, facts.TxCountPending: 5, facts.TxCountRefunded: 6, facts.TxProductCosts: 7}})
	}
	w := &pgx.Batch{}
	QueueFacts(w, rows, now)
	QueueFacts(w, nil, now)
	if w.Len() != 2 { // the rows, and the outbox's size
		t.Fatalf("%d statements queued, want 2", w.Len())
	}
	if err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, w).Close() }); err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(must(pg.Pool.Query(ctx, `SELECT project_id, timezone, ts, source, connection_id, account_id,
		campaign_id, adset_id, ad_id, currency, page_views, leads, initiate_checkout, tx_revenue, tx_count,
		tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs FROM fact_outbox ORDER BY id`)),
		func(r pgx.CollectableRow) (FactRow, error) {
			var f FactRow
			err := r.Scan(&f.ProjectID, &f.TimeZone, &f.Time, &f.Source, &f.ConnectionID, &f.AccountID, &f.CampaignID,
				&f.AdsetID, &f.AdID, &f.Currency, &f.Values[facts.PageViews], &f.Values[facts.Leads], &f.Values[facts.InitiateCheckout], &f.Values[facts.TxRevenue], &f.Values[facts.TxCount],
				&f.Values[facts.TxCountTotal], &f.Values[facts.TxCountPending], &f.Values[facts.TxCountRefunded], &f.Values[facts.TxProductCosts])
			f.Time = f.Time.UTC()
			return f, err
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) {
		t.Fatalf("%d rows stored, want %d", len(got), len(rows))
	}
	for i := range rows {
		if got[i] != rows[i] {
			t.Errorf("row %d: got %+v, want %+v", i, got[i], rows[i])
		}
	}
}

func must(rows pgx.Rows, err error) pgx.Rows {
	if err != nil {
		panic(err)
	}
	return rows
}
