package outbox

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/capi"
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
	backlogs := func() (Backlog, Backlog) {
		t.Helper()
		f, c, err := Backlogs(ctx, pg.Pool)
		if err != nil {
			t.Fatal(err)
		}
		return f, c
	}
	if f, c := backlogs(); f != (Backlog{}) || c != (Backlog{}) {
		t.Fatalf("empty outboxes: %+v %+v", f, c)
	}
	err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		f := FactRow{ProjectID: "prj_1", TimeZone: "UTC", Time: t0, Source: "alpha_ads", ConnectionID: "con_1",
			AccountID: "act_1", CampaignID: "c1", Currency: "BRL", Values: facts.Values{facts.Leads: 1}}
		QueueFacts(w, []FactRow{f, f.Negate(), f}, clk.Now())
		clk.Advance(time.Minute)
		in := capi.Input{EventName: "Lead", EventTime: t0, EventID: "e1", ActionSource: capi.Other, Lead: capi.Lead{Email: "a@x.com"}}
		if err := QueueConversion(w, Conversion{ProjectID: "prj_1", PixelID: "px1", Input: in}, clk.Now()); err != nil {
			return err
		}
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	f, c := backlogs()
	if f.Pending != 3 || !f.Oldest.Equal(t0) || c.Pending != 1 || !c.Oldest.Equal(t0.Add(time.Minute)) {
		t.Fatalf("queued: facts %+v, conversions %+v", f, c)
	}
	d := NewDrainer(pg.Pool, ch.Conn, clk, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if n, err := d.RunOnce(ctx); err != nil || n != 3 {
		t.Fatalf("drained %d: %v", n, err)
	}
	if f, c := backlogs(); f != (Backlog{}) || c.Pending != 1 {
		t.Fatalf("drained: facts %+v, conversions %+v", f, c)
	}
}
