package conversions_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/capi"
	"mtk/ingest/conversions"
	"mtk/ingest/factstream"
	"mtk/ingest/journeys"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// Backlogs counts what waits in each outbox and dates the oldest of it.
func TestBacklogs(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	backlogs := func() (conversions.Backlog, conversions.Backlog, conversions.Backlog) {
		t.Helper()
		f, c, j, err := conversions.Backlogs(ctx, pg.Pool)
		if err != nil {
			t.Fatal(err)
		}
		return f, c, j
	}
	if f, c, j := backlogs(); f != (conversions.Backlog{}) || c != (conversions.Backlog{}) || j != (conversions.Backlog{}) {
		t.Fatalf("empty outboxes: %+v %+v %+v", f, c, j)
	}
	err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		f := factstream.FactRow{ProjectID: "prj_1", TimeZone: "UTC", Time: t0, AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL", Values: facts.Values{facts.Leads: 1}}
		factstream.QueueFacts(w, []factstream.FactRow{f, f.Negate(), f}, clk.Now())
		clk.Advance(time.Minute)
		in := capi.Input{EventName: "Lead", EventTime: t0, EventID: "e1", ActionSource: capi.Other, Lead: capi.Lead{Email: "a@x.com"}}
		if err := conversions.Queue(w, conversions.Conversion{ProjectID: "prj_1", PixelID: "px1", Input: in}, clk.Now()); err != nil {
			return err
		}
		clk.Advance(time.Minute)
		touch := journeys.JourneyRow{ProjectID: "prj_1", TimeZone: "UTC", Kind: journeys.JourneyTouch, Time: t0, LeadID: "ld_1"}
		journeys.QueueJourneys(w, []journeys.JourneyRow{touch, touch}, clk.Now())
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	f, c, j := backlogs()
	if f.Pending != 3 || !f.Oldest.Equal(t0) || c.Pending != 1 || !c.Oldest.Equal(t0.Add(time.Minute)) ||
		j.Pending != 2 || !j.Oldest.Equal(t0.Add(2*time.Minute)) {
		t.Fatalf("queued: facts %+v, conversions %+v, journeys %+v", f, c, j)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, d := range []struct {
		d    *outbox.Drainer
		want int
	}{{factstream.NewDrainer(pg.Pool, ch.Conn, clk, log), 3}, {journeys.NewDrainer(pg.Pool, ch.Conn, clk, log), 2}} {
		if n, err := d.d.RunOnce(ctx); err != nil || n != d.want {
			t.Fatalf("drained %d, want %d: %v", n, d.want, err)
		}
	}
	if f, c, j := backlogs(); f != (conversions.Backlog{}) || c.Pending != 1 || j != (conversions.Backlog{}) {
		t.Fatalf("drained: facts %+v, conversions %+v, journeys %+v", f, c, j)
	}
}
