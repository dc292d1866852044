package outbox_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/events"
	"mtk/ingest/factstream"
	"mtk/ingest/journeys"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// The outboxes' sizes (the journey outbox's too) follow every write and drain in their own
// transactions, from many connections at once, without a row that writers share; Recount folds
// them to one row per outbox and corrects rows deleted by hand.
func TestOutboxSizes(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	sizes := func() outbox.Sizes {
		t.Helper()
		var s outbox.Sizes
		err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) (err error) {
			s, err = outbox.ReadSizesTx(ctx, tx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	write := func(nfacts, nevents, njourneys int) error {
		return pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
			w := &pgx.Batch{}
			f := factstream.FactRow{ProjectID: "prj_1", TimeZone: "UTC", Time: t0, AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL", Values: facts.Values{facts.Leads: 1}}
			fs := make([]factstream.FactRow, nfacts)
			for i := range fs {
				fs[i] = f
			}
			factstream.QueueFacts(w, fs, clk.Now())
			evs := make([]events.EventRow, nevents)
			for i := range evs {
				evs[i] = events.EventRow{ProjectID: "prj_1", ContainerID: "ctr_1", EventID: "e", Time: t0, ReceivedAt: t0}
			}
			events.QueueEvents(w, evs)
			js := make([]journeys.JourneyRow, njourneys)
			for i := range js {
				js[i] = journeys.JourneyRow{ProjectID: "prj_1", TimeZone: "UTC", Kind: journeys.JourneyTouch, Time: t0, LeadID: "ld_1"}
			}
			journeys.QueueJourneys(w, js, clk.Now())
			return tx.SendBatch(ctx, w).Close()
		})
	}
	errs := make(chan error, 20)
	for range 20 {
		go func() { errs <- write(3, 2, 1) }()
	}
	for range 20 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if s := sizes(); s != (outbox.Sizes{Events: 40, Facts: 60, Journeys: 20}) {
		t.Fatalf("after 20 concurrent writes: %+v", s)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := events.NewDrainer(pg.Pool, ch.Conn, clk, log).RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if s := sizes(); s != (outbox.Sizes{Facts: 60, Journeys: 20}) {
		t.Fatalf("after the event drain: %+v", s)
	}
	for _, del := range []string{"DELETE FROM fact_outbox WHERE id IN (SELECT id FROM fact_outbox LIMIT 10)",
		"DELETE FROM journey_outbox WHERE id IN (SELECT id FROM journey_outbox LIMIT 5)"} {
		if _, err := pg.Pool.Exec(ctx, del); err != nil {
			t.Fatal(err)
		}
	}
	if err := outbox.Recount(ctx, pg.Pool); err != nil {
		t.Fatal(err)
	}
	var rows int
	if err := pg.Pool.QueryRow(ctx, "SELECT count(*) FROM outbox_sizes").Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if s := sizes(); s != (outbox.Sizes{Facts: 50, Journeys: 15}) || rows != 3 {
		t.Fatalf("after a recount: %+v in %d rows", s, rows)
	}
	if b := (outbox.Bounds{Events: 1, Facts: 52, Journeys: 16}); !b.Fits(sizes(), 1, 2, 1) || b.Fits(sizes(), 2, 0, 0) ||
		b.Fits(sizes(), 0, 3, 0) || b.Fits(sizes(), 0, 0, 2) {
		t.Fatal("Fits is not exact at the edge")
	}
}
