package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/api/idempotency"
	"mtk/ingest/batcher"
	"mtk/ingest/events"
	"mtk/ingest/leads"
	"mtk/internal/apperr"
	"mtk/internal/jsonx"
	"mtk/platform"
	"mtk/platform/utm"
)

// poisons are events holding a value PostgreSQL refuses (a NUL, invalid UTF-8) in the members
// where the HTTP layer's text checks would catch it: sent to the service directly, they reach
// the batch's transaction. raw is the body as stored (nil: the event encoded).
var poisons = []struct {
	name string
	edit func(*events.Input)
	raw  []byte
}{
	{"NUL in lead.email", func(in *events.Input) { in.Lead.Email = "p\x00@x.com" }, nil},
	{"NUL in lead.city", func(in *events.Input) { in.Lead.City = "São\x00Paulo" }, nil},
	{"NUL in config.name", func(in *events.Input) { in.Config.Name = "Page\x00View" }, nil},
	{"NUL in config.alpha.name", func(in *events.Input) { in.Config.Alpha.Name = "Page\x00View" }, nil},
	{"NUL in utm.utm_term", func(in *events.Input) { in.UTM.Term = "shoes\x00" }, nil},
	{"invalid UTF-8 in page.url", func(in *events.Input) { in.Page.URL = "https://acme.example/\xff" }, nil},
	{"invalid UTF-8 in page.referrer", func(in *events.Input) { in.Page.Referrer = "https://search.example/?q=Jo\xc3\x28o" }, nil},
	{"invalid UTF-8 in properties", func(in *events.Input) { in.Properties = json.RawMessage("{\"a\":\"\xff\"}") },
		[]byte("{\"config\":{\"name\":\"PageView\"},\"properties\":{\"a\":\"\xff\"}}")},
}

// goodEvent is an attributed PageView of its own lead, forwarded to the first network.
func goodEvent(id string) events.Input {
	ts := time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC).Unix()
	return events.Input{EventID: id, Timestamp: &ts, Config: events.EventConfig{Name: "PageView", Alpha: &events.AlphaConfig{Name: "PageView"}},
		Lead: leads.Identity{Email: id + "@x.com", City: "Recife"}, Page: events.Page{URL: "https://acme.example/p"},
		UTM: utm.Params{Source: attributedUTM["utm_source"], Campaign: attributedUTM["utm_campaign"], Medium: attributedUTM["utm_medium"],
			Content: attributedUTM["utm_content"]}}
}

// sent is one event sent to the service and its answer.
type sent struct {
	target  events.Target
	in      events.Input
	raw     []byte
	bad     bool
	receipt events.Receipt
	res     events.Result
	err     error
}

// trackAll sends the events to svc at once and waits for their answers.
func trackAll(svc *events.Service, all []*sent) {
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw := s.raw
			if raw == nil {
				raw, _ = json.Marshal(s.in)
			}
			s.res, s.err = svc.Track(context.Background(), s.target, s.in, events.Meta{ClientIP: "203.0.113.9", Receipt: s.receipt}, raw)
		}()
	}
	wg.Wait()
}

// An event holding a value PostgreSQL refuses, which no check caught, never fails another event
// of its group commit, of any tenant: it alone is a 400 invalid_parameter (a generic message,
// never the store's), and every other event is stored exactly once, with its lead, its fact and
// its conversion, and its Idempotency-Key's answer is written with it. Before, one such event
// made its whole batch 503 (27 of 40 concurrent events of another workspace).
func TestPoisonedEventsAreSetApart(t *testing.T) {
	e := newEnv(t)
	// A long linger gathers the events below into a few batches, of every tenant.
	var mu sync.Mutex
	biggest := 0
	e.eventsConfig = events.Config{Batch: batcher.Config{Linger: 150 * time.Millisecond, MaxWait: 300 * time.Millisecond,
		Observe: func(size int, _ time.Duration, _ error) { mu.Lock(); biggest = max(biggest, size); mu.Unlock() }}}
	e.rebuild()
	ctx := context.Background()
	var all []*sent
	var tenants []trackingTenant
	// The first events of each kind come with an Idempotency-Key, whose answer the batch writes.
	receipt := func(tgt events.Target, key string) events.Receipt {
		req := idempotency.Request{Scope: idempotency.ContainerScope(tgt.Container.ID), Key: key, Method: "POST",
			Path: "/v3/tracking/events", BodyHash: []byte(key)}
		claim, err := idempotency.NewStore(e.store.Pool()).Begin(ctx, req, e.clock.Now(), idempotency.Lease)
		if err != nil || claim.Outcome != idempotency.Started {
			t.Fatalf("claim %+v: %v", claim, err)
		}
		return idempotency.NewReceipt(claim, "req_"+key, jsonx.Marshal)
	}
	for i, name := range []string{"acme", "bolt", "cora"} {
		tn := e.newTrackingTenant(name, fmt.Sprintf("act_%d", 111*(i+1)), name+".example")
		e.seedEntities(tn)
		if err := e.store.Containers.LinkPixel(ctx, tn.v3.ID, platform.LinkedPixel{Source: platform.KindAlpha, ID: "px-" + name, Name: "px"}); err != nil {
			t.Fatal(err)
		}
		tgt, err := e.events.ContainerTarget(ctx, tn.ws.ID, tn.v3.ID)
		if err != nil {
			t.Fatal(err)
		}
		tenants = append(tenants, tn)
		for j := range 14 {
			s := &sent{target: tgt, in: goodEvent(fmt.Sprintf("%s-good-%d", name, j))}
			if j < 3 {
				s.receipt = receipt(tgt, s.in.EventID)
			}
			all = append(all, s)
		}
		for j, p := range poisons {
			if j%3 != i && name != "acme" { // acme sends every poison; the others a few
				continue
			}
			in := goodEvent(fmt.Sprintf("%s-bad-%d", name, j))
			p.edit(&in)
			all = append(all, &sent{target: tgt, in: in, raw: p.raw, bad: true, receipt: receipt(tgt, in.EventID)})
		}
	}
	trackAll(e.events, all)
	if biggest < len(all)/2 {
		t.Fatalf("the largest batch held %d of %d events", biggest, len(all))
	}
	// The good events' answers are stored; the bad ones' records are left to the middleware,
	// which stores the 400 after the handler.
	if good, open := e.pgCount(t, "SELECT count(*) FROM idempotency_records WHERE status = 200 AND key LIKE '%-good-%'"),
		e.pgCount(t, "SELECT count(*) FROM idempotency_records WHERE status IS NULL AND key LIKE '%-bad-%'"); good != 9 || open != len(all)-42 {
		t.Errorf("%d good answers stored, want 9; %d bad records left open, want %d", good, open, len(all)-42)
	}

	for _, s := range all {
		switch e, isApp := apperr.As(s.err); {
		case s.bad && (!isApp || e.Status != 400 || e.Code != apperr.CodeInvalidParameter || len(e.Details) != 0 ||
			e.Message != "The event holds a value that cannot be stored, such as a NUL character or invalid UTF-8."):
			t.Errorf("%s: %v, want 400 invalid_parameter", s.in.EventID, s.err)
		case !s.bad && (s.err != nil || !s.res.Success || s.res.LeadID == nil):
			t.Errorf("%s: %+v %v, want stored", s.in.EventID, s.res, s.err)
		}
	}
	e.drain()
	for _, tn := range tenants {
		p := tn.project.ID
		var n, ids uint64
		if err := e.ch.QueryRow(ctx, "SELECT count(), uniqExact(event_id) FROM events WHERE project_id = ?", p).Scan(&n, &ids); err != nil {
			t.Fatal(err)
		}
		bad := e.pgCount(t, "SELECT count(*) FROM event_ids WHERE project_id = $1 AND event_id LIKE '%-bad-%'", p)
		if n != 14 || ids != 14 || bad != 0 {
			t.Errorf("%s: %d events stored, %d distinct, %d bad ones claimed; want the 14 good ones once", tn.ws.Name, n, ids, bad)
		}
		for what, got := range map[string]int{
			"event ids":   e.pgCount(t, "SELECT count(*) FROM event_ids WHERE project_id = $1", p),
			"leads":       e.pgCount(t, "SELECT count(*) FROM leads WHERE project_id = $1", p),
			"conversions": e.pgCount(t, "SELECT count(*) FROM conversion_outbox WHERE project_id = $1", p),
			"page views":  int(e.chSum(t, p, "page_views")),
			"new leads":   int(e.chSum(t, p, "leads")),
		} {
			if got != 14 {
				t.Errorf("%s: %d %s, want 14", tn.ws.Name, got, what)
			}
		}
	}
}

// A store outage still fails the whole batch, poisoned events included, with 503 and
// Retry-After: set apart is only what PostgreSQL refuses to take.
func TestEventBatchOutageIs503(t *testing.T) {
	e := newEnv(t)
	tn := e.newTrackingTenant("acme", "act_111", "acme.example")
	ctx := context.Background()
	tgt, err := e.events.ContainerTarget(ctx, tn.ws.ID, tn.v3.ID)
	if err != nil {
		t.Fatal(err)
	}
	dead, err := pgxpool.New(ctx, "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	defer dead.Close()
	down := systemOver(t, e.cfg, dead, e.ch, e.clock, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	var all []*sent
	for j := range 10 {
		in := goodEvent(fmt.Sprintf("good-%d", j))
		in.UTM = utm.Params{} // attribution reads PostgreSQL before the batch
		all = append(all, &sent{target: tgt, in: in})
	}
	for j, p := range poisons[:3] {
		in := goodEvent(fmt.Sprintf("bad-%d", j))
		in.UTM = utm.Params{}
		p.edit(&in)
		all = append(all, &sent{target: tgt, in: in, bad: true})
	}
	trackAll(down.Events, all)
	for _, s := range all {
		if e, ok := apperr.As(s.err); !ok || e.Status != 503 || e.Code != apperr.CodeServiceUnavailable || e.RetryAfter == 0 {
			t.Errorf("%s: %v, want 503 service_unavailable with Retry-After", s.in.EventID, s.err)
		}
	}

	// A failure that is not a refused value (here a table gone) fails the good events of a
	// poisoned batch too, with 503; a poisoned one is 400 when its value is refused before the
	// failure, else 503 too.
	if _, err := e.store.Pool().Exec(ctx, "ALTER TABLE event_outbox RENAME TO event_outbox_away"); err != nil {
		t.Fatal(err)
	}
	for _, s := range all {
		s.in.EventID = strings.Replace(s.in.EventID, "-", "-again-", 1)
	}
	trackAll(e.events, all)
	for _, s := range all {
		if e, ok := apperr.As(s.err); !ok || !(e.Status == 503 || s.bad && e.Status == 400) {
			t.Errorf("%s: %v, want 503 (or 400 for a poisoned one)", s.in.EventID, s.err)
		}
	}
	if e, _ := apperr.As(all[10].err); e == nil || e.Status != 400 {
		t.Errorf("a NUL in lead.email, refused as the leads are read: %v, want 400", all[10].err)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM leads") + e.pgCount(t, "SELECT count(*) FROM event_ids"); n != 0 {
		t.Fatalf("%d leads and event ids stored for events not stored", n)
	}
}
