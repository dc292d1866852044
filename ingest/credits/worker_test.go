package credits_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/credits"
	"mtk/ingest/journeys"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// stores is a test's databases with one project, and the journey and credit drainers.
type stores struct {
	t        *testing.T
	pool     *pgxpool.Pool
	ch       driver.Conn
	clk      *clock.Fake
	journeys *outbox.Drainer
	credits  *outbox.Drainer
}

const project = "prj_1"

func newStores(t *testing.T) *stores {
	pg, ch := testenv.Postgres(t), testenv.ClickHouse(t)
	clk := clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))
	if _, err := pg.Pool.Exec(context.Background(), `INSERT INTO workspaces (id, name) VALUES ('ws_1', 'W');
		INSERT INTO projects (id, workspace_id, name, currency, timezone) VALUES ('prj_1', 'ws_1', 'P', 'BRL', 'America/Sao_Paulo')`); err != nil {
		t.Fatal(err)
	}
	return &stores{t: t, pool: pg.Pool, ch: ch.Conn, clk: clk, journeys: journeys.NewDrainer(pg.Pool, ch.Conn, clk, nil),
		credits: credits.NewDrainer(pg.Pool, ch.Conn, clk, nil)}
}

var ad = facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1", AdsetID: "s1", AdID: "a1"}

// touch and order queue a lead's touch and an approved order as the ingest services do, and
// drain the journey outbox.
func (s *stores) touch(lead string, at time.Time) facts.Touch {
	s.queue(journeys.JourneyRow{ProjectID: project, TimeZone: "America/Sao_Paulo", Kind: journeys.JourneyTouch, Time: at, LeadID: lead,
		EventID: fmt.Sprintf("ev-%s-%d", lead, at.Unix()), Origin: "event", AdEntity: ad})
	return facts.Touch{Time: at, Entity: ad}
}

func (s *stores) order(id, lead string, at time.Time, value int64) facts.OrderJourney {
	r, _ := journeys.OrderJourney(project, "America/Sao_Paulo", id, lead, "approved", "BRL", at, value, 0)
	s.queue(r)
	return facts.OrderJourney{Time: at, Currency: "BRL", Values: facts.Values{facts.TxRevenue: value * facts.MicrosPerMinor, facts.TxCount: 1, facts.TxCountTotal: 1}}
}

func (s *stores) queue(rs ...journeys.JourneyRow) {
	s.t.Helper()
	ctx := context.Background()
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		b := &pgx.Batch{}
		journeys.QueueJourneys(b, rs, s.clk.Now())
		return tx.SendBatch(ctx, b).Close()
	}); err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.journeys.RunOnce(ctx); err != nil {
		s.t.Fatal(err)
	}
}

// totals are credits_raw's sums per model and date under 90-day windows, and its row count.
func (s *stores) totals() (map[string]facts.Values, uint64) {
	s.t.Helper()
	sums := "toInt64(sum(" + strings.Join(facts.ColumnNames(facts.CreditsFamily.Measures), ")), toInt64(sum(") + "))"
	rows, err := s.ch.Query(context.Background(), `SELECT model, by_click, ad_id, `+sums+`, count()
		FROM credits_raw WHERE project_id = ? GROUP BY model, by_click, ad_id`, project)
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]facts.Values{}
	var n uint64
	for rows.Next() {
		var model, adID string
		var byClick uint8
		var v facts.Values
		var c uint64
		dest := append(append([]any{&model, &byClick, &adID}, v.Dest(facts.CreditsFamily.Measures)...), &c)
		if err := rows.Scan(dest...); err != nil {
			s.t.Fatal(err)
		}
		n += c
		if v != (facts.Values{}) {
			out[fmt.Sprint(model, byClick, adID)] = v
		}
	}
	return out, n
}

// want sums facts.Credits of journeys as totals sums credits_raw.
func want(journeys ...facts.OrderJourney) map[string]facts.Values {
	out := map[string]facts.Values{}
	for _, j := range journeys {
		for _, c := range facts.Credits(j) {
			byClick := 0
			if c.ByClick {
				byClick = 1
			}
			k := fmt.Sprint(c.Model, byClick, c.Entity.AdID)
			out[k] = out[k].Add(c.Values)
		}
	}
	for k, v := range out {
		if v == (facts.Values{}) {
			delete(out, k)
		}
	}
	return out
}

func (s *stores) check(step string, journeys ...facts.OrderJourney) {
	s.t.Helper()
	got, _ := s.totals()
	if w := want(journeys...); fmt.Sprint(got) != fmt.Sprint(w) {
		s.t.Fatalf("%s: credits_raw %v, want %v", step, got, w)
	}
}

func (s *stores) count(sql string) int {
	s.t.Helper()
	var n int
	if err := s.pool.QueryRow(context.Background(), sql).Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

var errKilled = errors.New("killed")

// A worker killed before its commit changes nothing; run again, it credits once, and a third run
// finds nothing to do.
func TestWorkerCrashBeforeCommit(t *testing.T) {
	s := newStores(t)
	ctx := context.Background()
	now := s.clk.Now()
	t1 := s.touch("ld_1", now.Add(-50*time.Hour))
	o := s.order("con_1/tx-1", "ld_1", now.Add(-time.Hour), 1000)
	o.Touches = []facts.Touch{t1}
	w := credits.New(s.pool, s.ch, s.clk, nil)
	credits.SetComputed(w, func() error { return errKilled })
	if _, err := w.RunOnce(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("killed run: %v", err)
	}
	if n := s.count("SELECT (SELECT count(*) FROM order_credits) + (SELECT count(*) FROM credit_outbox)"); n != 0 {
		t.Fatalf("the killed run left %d rows", n)
	}
	if n := s.count("SELECT count(*) FROM credit_dirty"); n != 1 {
		t.Fatalf("%d marks after the killed run, want 1", n)
	}
	credits.SetComputed(w, nil)
	for i, want := range []int{1, 0} {
		if n, err := w.RunOnce(ctx); err != nil || n != want {
			t.Fatalf("run %d: %d orders (%v), want %d", i, n, err, want)
		}
	}
	if _, err := s.credits.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	s.check("after the rerun", o)
}

// A mark set again while the worker computes (the journey drainer lands a touch of the same lead
// meanwhile) survives the batch, so that the next batch credits the touch.
func TestWorkerKeepsMarkSetWhileComputing(t *testing.T) {
	s := newStores(t)
	ctx := context.Background()
	now := s.clk.Now()
	o := s.order("con_1/tx-1", "ld_1", now.Add(-time.Hour), 1000)
	w := credits.New(s.pool, s.ch, s.clk, nil)
	var late facts.Touch
	credits.SetComputed(w, func() error {
		credits.SetComputed(w, nil)
		late = s.touch("ld_1", now.Add(-3*24*time.Hour))
		return nil
	})
	// The order is credited without the touch, then (the mark kept) with it.
	for i := range 2 {
		if n, err := w.RunOnce(ctx); err != nil || n != 1 {
			t.Fatalf("run %d: %d orders (%v), want 1", i, n, err)
		}
	}
	if _, err := s.credits.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	o.Touches = []facts.Touch{late}
	s.check("after the late touch", o)
	if n := s.count("SELECT count(*) FROM credit_dirty"); n != 0 {
		t.Fatalf("%d marks left", n)
	}
}

// One batch reads many people at once and credits each order once; it logs what it cost.
func TestWorkerBatch(t *testing.T) {
	s := newStores(t)
	ctx := context.Background()
	now := s.clk.Now()
	var rows []journeys.JourneyRow
	var ordered []facts.OrderJourney
	for p := range credits.Batch {
		lead := fmt.Sprintf("ld_%d", p)
		o := facts.OrderJourney{Time: now.Add(-time.Duration(p) * time.Minute), Currency: "BRL",
			Values: facts.Values{facts.TxRevenue: 100 * facts.MicrosPerMinor, facts.TxCount: 1, facts.TxCountTotal: 1}}
		for k := range 5 {
			at := o.Time.Add(-time.Duration(k*37+p%11) * time.Hour)
			rows = append(rows, journeys.JourneyRow{ProjectID: project, TimeZone: "America/Sao_Paulo", Kind: journeys.JourneyTouch, Time: at,
				LeadID: lead, EventID: fmt.Sprintf("ev-%d-%d", p, k), AdEntity: ad})
			o.Touches = append(o.Touches, facts.Touch{Time: at, Entity: ad})
		}
		r, _ := journeys.OrderJourney(project, "America/Sao_Paulo", fmt.Sprintf("con_1/tx-%d", p), lead, "approved", "BRL", o.Time, 100, 0)
		rows = append(rows, r)
		ordered = append(ordered, o)
	}
	s.queue(rows...)
	w := credits.New(s.pool, s.ch, s.clk, nil)
	var stats []credits.Stats
	w.Observe = func(st credits.Stats) { stats = append(stats, st) }
	if n, err := w.RunOnce(ctx); err != nil || n != credits.Batch {
		t.Fatalf("run: %d orders (%v), want %d", n, err, credits.Batch)
	}
	start := time.Now()
	if _, err := s.credits.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	drained := time.Since(start)
	s.check("one batch", ordered...)
	_, rowsWritten := s.totals()
	for _, st := range stats {
		t.Logf("batch: %d marks, %d people, %d orders, %d journey rows read, %s; drained into %d credit rows in %s",
			st.Marks, st.People, st.Orders, st.RowsRead, st.Took, rowsWritten, drained)
	}
}
