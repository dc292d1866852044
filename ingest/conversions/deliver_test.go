package conversions

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/platform"
)

// Failures are retried with backoff and go dead after MaxAttempts; a refused event goes dead at
// once while the others of its request are sent again; an old event is never sent; an operator
// retry makes a dead conversion due again.
func TestDelivererRetries(t *testing.T) {
	pg := testenv.Postgres(t)
	ctx := context.Background()
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	var status atomic.Int32
	status.Store(500)
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		switch status.Load() {
		case 400:
			w.WriteHeader(400)
			io.WriteString(w, `{"error":{"message":"data[1]: event_time is in the future","code":100}}`) //nolint:errcheck
		default:
			w.WriteHeader(int(status.Load()))
			io.WriteString(w, `{"events_received":1}`) //nolint:errcheck
		}
	}))
	defer srv.Close()
	st := platform.New(pg.Pool, clk)
	ws, _ := st.Workspaces.CreateWorkspace(ctx, "w", platform.TierDefault)
	p, err := st.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "p", Currency: "BRL", Timezone: "UTC"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: platform.KindAlpha, Name: "a",
		SourceID: "act_1", APIBaseURL: srv.URL + "/alpha/v19.0", AccessToken: "tok"}); err != nil {
		t.Fatal(err)
	}
	queue := func(id string, at time.Time) {
		t.Helper()
		err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
			w := &pgx.Batch{}
			in := capi.Input{EventName: "Lead", EventTime: at, EventID: id, ActionSource: capi.Other, Lead: capi.Lead{Email: "a@x.com"}}
			if err := Queue(w, Conversion{ProjectID: p.ID, PixelID: "px1", Input: in}, clk.Now()); err != nil {
				return err
			}
			return tx.SendBatch(ctx, w).Close()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	d := NewDeliverer(pg.Pool, st.Connections, srv.Client(), clk, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var sent, dead int
	d.Observe = func(s, dd int) { sent, dead = sent+s, dead+dd }
	run := func() int {
		t.Helper()
		n, err := d.RunOnce(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	stats := func() map[string]int64 {
		t.Helper()
		s, err := Count(ctx, pg.Pool)
		if err != nil {
			t.Fatal(err)
		}
		return s.Conversions
	}

	queue("old", clk.Now().Add(-8*24*time.Hour))
	queue("e1", clk.Now())
	queue("e1", clk.Now()) // the same event id is queued once
	run()
	if s := stats(); s["dead"] != 1 || s["pending"] != 1 || requests.Load() != 1 {
		t.Fatalf("after a 500: %v, %d requests", s, requests.Load())
	}
	if run(); requests.Load() != 1 {
		t.Fatal("retried before its backoff")
	}
	for i := 2; i <= MaxAttempts; i++ {
		clk.Advance(Backoff(i - 1))
		run()
	}
	if s := stats(); s["dead"] != 2 || requests.Load() != MaxAttempts {
		t.Fatalf("after %d failures: %v, %d requests", MaxAttempts, s, requests.Load())
	}
	items, err := List(ctx, pg.Pool, StatusDead, 10)
	if err != nil || len(items) != 2 {
		t.Fatalf("%v %v", items, err)
	}
	// A refused event goes dead; the other of its request is sent on the next run.
	status.Store(400)
	queue("e2", clk.Now())
	if err := Retry(ctx, pg.Pool, items[1].ID, clk.Now()); err != nil { // e1
		t.Fatal(err)
	}
	run()
	status.Store(200)
	if n := run(); n != 1 {
		t.Fatalf("sent %d after the refusal", n)
	}
	if s := stats(); s["sent"] != 1 || s["dead"] != 2 {
		t.Fatalf("%v", s)
	}
	// Observe heard what the deliverer settled: e1 out of attempts, old (queued dead, then retried
	// by hand) too old, and the sent one.
	if sent != 1 || dead != 2 {
		t.Fatalf("observed %d sent and %d dead, want 1 and 2", sent, dead)
	}
	if err := Retry(ctx, pg.Pool, 999, clk.Now()); err == nil {
		t.Fatal("retry of an unknown id")
	}
}

func TestBackoff(t *testing.T) {
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 4: 4 * time.Minute, 20: time.Hour} {
		if got := Backoff(n); got != want {
			t.Errorf("Backoff(%d) = %s, want %s", n, got, want)
		}
	}
}
