package outbox_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/factstream"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// A drainer killed between the ClickHouse insert and the mark, or before the insert, and run
// again loses and duplicates nothing.
func TestDrainerCrashes(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	queue := func(n int, revenue int64) {
		t.Helper()
		err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
			w := &pgx.Batch{}
			var rows []factstream.FactRow
			for i := range n {
				f := factstream.FactRow{ProjectID: "prj_1", TimeZone: "America/Sao_Paulo", Time: clk.Now().Add(-time.Duration(i) * time.Hour),
					AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL", Values: facts.Values{facts.TxRevenue: revenue, facts.TxCount: 1, facts.TxCountTotal: 1}}
				rows = append(rows, f)
				if i%2 == 1 {
					rows = append(rows, f.Negate())
				}
			}
			factstream.QueueFacts(w, rows, clk.Now())
			return tx.SendBatch(ctx, w).Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sums := func() (revenue, count int64, rows uint64) {
		t.Helper()
		if err := ch.Conn.QueryRow(ctx, "SELECT toInt64(sum(tx_revenue)), toInt64(sum(tx_count)), count() FROM facts_raw WHERE project_id = 'prj_1'").
			Scan(&revenue, &count, &rows); err != nil {
			t.Fatal(err)
		}
		return
	}
	d := factstream.NewDrainer(pg.Pool, ch.Conn, clk, slog.New(slog.NewTextHandler(io.Discard, nil)))
	queue(10, 1_000_000) // 15 rows: 5 orders count
	outbox.SetCrash(d, killAt("mark"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("first run: %v", err)
	}
	if _, _, rows := sums(); rows != 15 {
		t.Fatalf("the killed run inserted %d rows, want 15", rows)
	}
	// Restarted: the rows are still pending, found in ClickHouse, and only marked.
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 15 {
		t.Fatalf("second run: %d %v", n, err)
	}
	if rev, cnt, rows := sums(); rev != 5_000_000 || cnt != 5 || rows != 15 {
		t.Fatalf("after the restart: revenue %d count %d rows %d", rev, cnt, rows)
	}

	// Killed before its insert, with new rows and a partly inserted batch: nothing is lost.
	queue(4, 2_000_000) // 6 rows: 2 orders count
	outbox.SetCrash(d, killAt("insert"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("third run: %v", err)
	}
	outbox.SetCrash(d, killAt(""))
	if n, err := d.RunOnce(ctx); err != nil || n != 6 {
		t.Fatalf("fourth run: %d %v", n, err)
	}
	if n, err := d.RunOnce(ctx); err != nil || n != 0 {
		t.Fatalf("nothing left: %d %v", n, err)
	}
	if rev, cnt, rows := sums(); rev != 9_000_000 || cnt != 7 || rows != 21 {
		t.Fatalf("at the end: revenue %d count %d rows %d", rev, cnt, rows)
	}
	if left := outboxLeft(t, pg.Pool); left != (outboxCounts{}) {
		t.Fatalf("left in PostgreSQL: %+v", left)
	}
}

// A row committed late, with a smaller id than rows an interrupted run already sent, comes
// first in the next batch, so that batch holds only part of the interrupted attempt: the rest
// stay suspects until applied, and nothing is inserted twice.
func TestDrainerLateRowSplitsAnAttempt(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	fact := func(revenue int64) factstream.FactRow {
		return factstream.FactRow{ProjectID: "prj_2", TimeZone: "UTC", Time: clk.Now(), AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL", Values: facts.Values{facts.TxRevenue: revenue, facts.TxCount: 1, facts.TxCountTotal: 1}}
	}
	queue := func(tx pgx.Tx, rows ...factstream.FactRow) {
		t.Helper()
		w := &pgx.Batch{}
		factstream.QueueFacts(w, rows, clk.Now())
		if err := tx.SendBatch(ctx, w).Close(); err != nil {
			t.Fatal(err)
		}
	}
	late, err := pg.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Rollback(ctx) //nolint:errcheck
	// The late row takes the smallest id and commits last.
	queue(late, fact(1))
	err = pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		queue(tx, fact(10), fact(100))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	d := factstream.NewDrainer(pg.Pool, ch.Conn, clk, slog.New(slog.NewTextHandler(io.Discard, nil)))
	outbox.SetBatchSize(d, 2)
	outbox.SetCrash(d, killAt("mark"))
	if _, err := d.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("interrupted run: %v", err)
	}
	if err := late.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	outbox.SetCrash(d, killAt(""))
	// Batches: the late row and the first sent one, then the second sent one.
	if n, err := d.RunOnce(ctx); err != nil || n != 3 {
		t.Fatalf("rerun: %d %v", n, err)
	}
	var revenue int64
	var rows uint64
	if err := ch.Conn.QueryRow(ctx, "SELECT toInt64(sum(tx_revenue)), count() FROM facts_raw WHERE project_id = 'prj_2'").
		Scan(&revenue, &rows); err != nil {
		t.Fatal(err)
	}
	if revenue != 111 || rows != 3 {
		t.Fatalf("facts_raw: revenue %d in %d rows, want 111 in 3", revenue, rows)
	}
	if left := outboxLeft(t, pg.Pool); left != (outboxCounts{}) {
		t.Fatalf("left in PostgreSQL: %+v", left)
	}
}

// errKilled is what a Drainer's crash hook set by killAt returns.
var errKilled = errors.New("killed")

// killAt is a Drainer crash hook that stops a run at step ("insert" or "mark"; "" never).
func killAt(at string) func(string, []outbox.RowKey) error {
	return func(step string, _ []outbox.RowKey) error {
		if step == at {
			return errKilled
		}
		return nil
	}
}

type outboxCounts struct{ facts, events, attempts int64 }

// outboxLeft counts what the drained outboxes still hold.
func outboxLeft(t *testing.T, pool *pgxpool.Pool) outboxCounts {
	t.Helper()
	var c outboxCounts
	if err := pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM fact_outbox),
		(SELECT count(*) FROM event_outbox), (SELECT count(*) FROM outbox_attempts)`).Scan(&c.facts, &c.events, &c.attempts); err != nil {
		t.Fatal(err)
	}
	return c
}

// While ClickHouse is down the drainer tries the same batch every cycle: its bookkeeping stays
// one attempt listing the batch, however long the outage, and drains whole once it is back.
func TestOutageLeavesBookkeepingBounded(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	rows := make([]factstream.FactRow, 30)
	for i := range rows {
		rows[i] = factstream.FactRow{ProjectID: "prj_3", TimeZone: "UTC", Time: clk.Now(), AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL", Values: facts.Values{facts.TxRevenue: 100, facts.TxCount: 1, facts.TxCountTotal: 1}}
	}
	err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		factstream.QueueFacts(w, rows, clk.Now())
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	down, err := clickhouse.Open(&clickhouse.Options{Addr: []string{"127.0.0.1:1"}, DialTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	outage := factstream.NewDrainer(pg.Pool, down, clk, log)
	outbox.SetBatchSize(outage, 20)
	for range 50 {
		if _, err := outage.RunOnce(ctx); err == nil {
			t.Fatal("a drain to a stopped ClickHouse succeeded")
		}
		clk.Advance(time.Second)
	}
	var attempts, listed int64
	if err := pg.Pool.QueryRow(ctx, "SELECT count(*), coalesce(sum(cardinality(ids)), 0) FROM outbox_attempts").Scan(&attempts, &listed); err != nil {
		t.Fatal(err)
	}
	if attempts != 1 || listed != 20 {
		t.Fatalf("after 50 failed cycles: %d attempts listing %d ids, want 1 listing the batch's 20", attempts, listed)
	}
	back := factstream.NewDrainer(pg.Pool, ch.Conn, clk, log)
	outbox.SetBatchSize(back, 20)
	if n, err := back.RunOnce(ctx); err != nil || n != 30 {
		t.Fatalf("after the outage: %d %v", n, err)
	}
	if left := outboxLeft(t, pg.Pool); left != (outboxCounts{}) {
		t.Fatalf("left in PostgreSQL: %+v", left)
	}
}
