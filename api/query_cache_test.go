package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/adsync"
	"mtk/api"
	"mtk/facts"
	"mtk/internal/adsim"
	"mtk/internal/config"
	"mtk/platform"
)

// cacheWorld asks queries of an objectsWorld (alpha and gamma synced from the simulator).
type cacheWorld struct {
	e  *env
	ow objectsWorld
}

func (w cacheWorld) ask(t *testing.T, body string, headers ...string) response {
	t.Helper()
	var in map[string]any
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatal(err)
	}
	in["project_id"] = w.ow.tn.project.ID
	r := w.e.do("POST", "/v3/query", in, append(bearer(w.ow.readKey), headers...)...)
	if r.Status != 200 && r.Status != 304 {
		t.Fatalf("%s: %d %s", body, r.Status, r.Body)
	}
	return r
}

// expect asks body and checks whether the cache answered it.
func (w cacheWorld) expect(t *testing.T, body string, hit bool) response {
	t.Helper()
	r := w.ask(t, body)
	if got := cacheOf(r); got != (map[bool]string{true: "hit", false: "miss"})[hit] {
		t.Fatalf("%s: cache %s, want hit %v (Server-Timing %q)", body, got, hit, r.Header.Get("Server-Timing"))
	}
	if r.Header.Get("ETag") == "" {
		t.Fatalf("%s: no ETag", body)
	}
	return r
}

// fresh is the answer read afresh from ClickHouse.
func (w cacheWorld) fresh(t *testing.T, body string) response {
	t.Helper()
	r := w.ask(t, body, "Cache-Control", "no-cache")
	if cacheOf(r) != "miss" {
		t.Fatalf("no-cache answered from the cache: %q", r.Header.Get("Server-Timing"))
	}
	return r
}

func cacheOf(r response) string { return timingDesc(r, "cache") }

// timingDesc is the desc of the named metric of the answer's Server-Timing.
func timingDesc(r response, name string) string {
	for _, m := range strings.Split(r.Header.Get("Server-Timing"), ",") {
		if desc, ok := strings.CutPrefix(strings.TrimSpace(m), name+";desc="); ok {
			return desc
		}
	}
	return ""
}

// The queries: a week to today by campaign, a past week per day (its days are synced per day and
// no write of the test touches them), and the week converted to USD.
const (
	cacheWeek = `{"fields":["spend","impressions","clicks","tx_revenue","tx_count"],"time":{"start":"2026-03-04","end":"2026-03-10"},"metadata":{"level":"campaign"}}`
	cachePast = `{"fields":["spend","impressions","ctr"],"time":{"start":"2026-02-28","end":"2026-03-02","granularity":"day"}}`
	cacheUSD  = `{"fields":["spend","cpm"],"time":{"start":"2026-03-04","end":"2026-03-10"},"metadata":{"convert_to_currency":"USD"}}`
)

// TestQueryCacheAnswersUntilWhatItReadMoves: an answer is served again, byte for byte, until a
// write lands that it reads: a sync batch, an order drained from the fact outbox, an entity
// rename, an exchange rate, a new connection. After each, the answer is read afresh and equals
// a no-cache read; answers whose days the write did not touch stay cached.
func TestQueryCacheAnswersUntilWhatItReadMoves(t *testing.T) {
	e := newEnv(t)
	w := cacheWorld{e: e, ow: newObjectsWorld(t, e)}
	e.heard()
	ctx := context.Background()
	last := map[string]response{}
	for _, q := range []string{cacheWeek, cachePast, cacheUSD} {
		miss := w.expect(t, q, false)
		hit := w.expect(t, q, true)
		if string(hit.Body) != string(miss.Body) || hit.Header.Get("ETag") != miss.Header.Get("ETag") {
			t.Fatalf("%s: the cached answer differs:\n%s\n%s", q, miss.Body, hit.Body)
		}
		if f := w.fresh(t, q); string(f.Body) != string(miss.Body) || f.Header.Get("ETag") != miss.Header.Get("ETag") {
			t.Fatalf("%s: a fresh read differs at the same version:\n%s\n%s", q, f.Body, miss.Body)
		}
		last[q] = miss
	}
	// after checks that each query is read again (moved) or still cached, and that the answer is
	// what a fresh read gives.
	after := func(write string, moved ...string) {
		t.Helper()
		e.heard()
		for _, q := range []string{cacheWeek, cachePast, cacheUSD} {
			isMoved := false
			for _, m := range moved {
				isMoved = isMoved || m == q
			}
			r := w.expect(t, q, !isMoved)
			if f := w.fresh(t, q); string(f.Body) != string(r.Body) {
				t.Fatalf("after %s, %s: stale answer\ncached %s\n fresh %s", write, q, r.Body, f.Body)
			}
			if isMoved == (r.Header.Get("ETag") == last[q].Header.Get("ETag")) {
				t.Fatalf("after %s, %s: ETag moved %v, want %v", write, q, !isMoved, isMoved)
			}
			last[q] = r
		}
	}

	// A sync 30 minutes later lands today's new spend.
	e.clock.Advance(30 * time.Minute)
	if _, err := w.ow.syncer.Run(ctx, w.ow.alpha, adsync.Options{}); err != nil {
		t.Fatal(err)
	}
	before := string(last[cacheWeek].Body)
	after("a sync batch", cacheWeek, cacheUSD)
	if string(last[cacheWeek].Body) == before {
		t.Fatal("the sync landed nothing the week's answer shows")
	}

	// An order on a synced ad, drained from the fact outbox.
	ad := w.ow.object(t, adsim.Alpha, adsim.LevelAd, false)
	o := order("tx-cache", "approved", 12345, e.clock.Now())
	o["utm"] = map[string]string{"utm_source": "alpha", "utm_campaign": "c|" + ad.CampaignID,
		"utm_medium": "s|" + ad.ParentID, "utm_content": "a|" + ad.ID}
	if r := e.webhook(w.ow.tn.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()
	before = string(last[cacheWeek].Body)
	after("an order", cacheWeek, cacheUSD)
	if string(last[cacheWeek].Body) == before {
		t.Fatal("the order's revenue is not in the week's answer")
	}

	// A campaign renamed in the network: every answer of the project may show names.
	campaign := w.ow.object(t, adsim.Alpha, adsim.LevelCampaign, false)
	if err := w.ow.sim.Rename(campaign.ID, "Renamed For Cache"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ow.syncer.Run(ctx, w.ow.alpha, adsync.Options{}); err != nil {
		t.Fatal(err)
	}
	after("a rename", cacheWeek, cachePast, cacheUSD)
	if !strings.Contains(string(last[cacheWeek].Body), "Renamed For Cache") {
		t.Fatalf("the rename is not in the answer: %s", last[cacheWeek].Body)
	}

	// An exchange rate of a day of the week, written as a rates feed writes it.
	rates := []facts.Rate{{Day: time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC), Base: "BRL", Quote: "USD", Rate: decimal.RequireFromString("0.5")}}
	if err := facts.InsertRates(ctx, e.ch, rates, uint64(time.Now().UnixNano())); err != nil {
		t.Fatal(err)
	}
	if err := facts.Moved(ctx, e.store.Pool(), facts.RateChanges(rates)); err != nil {
		t.Fatal(err)
	}
	after("a rate", cacheWeek, cacheUSD)

	// A new connection: the project's settings.
	if _, err := e.store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: w.ow.tn.project.ID,
		Kind: platform.KindBeta, Name: "Beta", SourceID: "123-456-7890"}); err != nil {
		t.Fatal(err)
	}
	after("a new connection", cacheWeek, cachePast, cacheUSD)

	// A tag the caller holds is 304 without a body while it stands.
	r := w.ask(t, cacheWeek, "If-None-Match", last[cacheWeek].Header.Get("ETag"))
	if r.Status != 304 || len(r.Body) != 0 || cacheOf(r) != "hit" {
		t.Fatalf("If-None-Match of the current tag: %d %q %s", r.Status, r.Header.Get("Server-Timing"), r.Body)
	}
	if r := w.ask(t, cacheWeek, "If-None-Match", `"other"`); r.Status != 200 {
		t.Fatalf("If-None-Match of another tag: %d", r.Status)
	}
}

// TestQueryCacheSharesEqualQueriesOnly: queries that differ only in spelling (member order,
// spacing, a date against the same local instant) share an answer; any other difference does not.
func TestQueryCacheSharesEqualQueriesOnly(t *testing.T) {
	e := newEnv(t)
	w := cacheWorld{e: e, ow: newObjectsWorld(t, e)}
	e.heard()
	base := `{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"}}`
	first := w.expect(t, base, false)
	for _, same := range []string{
		`{"metadata":{"level":"campaign"},"time":{"granularity":"day","end":"2026-03-09","start":"2026-03-04"},"fields":["spend","clicks"]}`,
		`{ "fields" : [ "spend", "clicks" ], "time": {"start":"2026-03-04T00:00:00","end":"2026-03-10T00:00:00","granularity":"day"},"metadata":{"level":"campaign"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04T03:00:00Z","end":"2026-03-10T03:00:00Z","granularity":"day"},"metadata":{"level":"campaign"}}`,
	} {
		r := w.expect(t, same, true)
		if string(r.Body) != string(first.Body) || r.Header.Get("ETag") != first.Header.Get("ETag") {
			t.Fatalf("%s: not the same answer", same)
		}
	}
	for _, other := range []string{
		`{"fields":["clicks","spend"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-08","granularity":"day"},"metadata":{"level":"campaign"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"week"},"metadata":{"level":"campaign"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"adset"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign","convert_to_currency":"USD"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"},"source":"alpha_ads"}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"},"filters":[{"member":"spend","operator":"gt","values":["1"]}]}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"},"order":{"spend":"desc"}}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"},"limit":2}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"},"limit":2,"offset":2}`,
		`{"fields":["spend","clicks"],"time":{"start":"2026-03-04","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"},"connection_ids":["` + w.ow.alpha.ID + `"]}`,
	} {
		if r := w.expect(t, other, false); r.Header.Get("ETag") == first.Header.Get("ETag") {
			t.Fatalf("%s: shares the tag of a different query", other)
		}
	}
}

// TestQueryCacheOnEqualsOff: the same queries over the same data answer the same bytes with the
// cache on (read, then cached) and off; with it off there is no ETag and every answer is a miss.
func TestQueryCacheOnEqualsOff(t *testing.T) {
	e := newEnv(t)
	w := cacheWorld{e: e, ow: newObjectsWorld(t, e)}
	e.heard()
	offCfg := e.cfg
	offCfg.QueryCache = config.Off
	off := api.New(systemOver(t, offCfg, e.store.Pool(), e.ch, e.clock, nil).API())
	queries := []string{cacheWeek, cachePast, cacheUSD,
		`{"fields":["spend","impressions","clicks","ctr","cpc","cpm"],"time":{"start":"2026-03-01","end":"2026-03-10","granularity":"day"}}`,
		`{"fields":["spend","impressions"],"time":{"start":"2026-03-10","end":"2026-03-10","granularity":"hour"},"metadata":{"level":"ad"},"limit":20}`,
		`{"fields":["spend","cpc"],"time":{"start":"2026-03-01","end":"2026-03-10","granularity":"week"},"metadata":{"level":"adset"},"order":{"spend":"desc"},"limit":5,"offset":1}`,
		`{"fields":["spend","tx_revenue","roas"],"metadata":{"convert_to_currency":"EUR"}}`,
		`{"fields":["impressions","clicks"],"time":{"start":"2026-03-01","end":"2026-03-10","granularity":"month"},"source":"gamma_ads","metadata":{"level":"campaign"}}`,
	}
	on := e.app
	for _, q := range queries {
		miss, hit := w.expect(t, q, false), w.expect(t, q, true)
		e.app = off
		r := w.ask(t, q)
		e.app = on
		if r.Header.Get("ETag") != "" || cacheOf(r) != "miss" {
			t.Fatalf("%s with the cache off: ETag %q, Server-Timing %q", q, r.Header.Get("ETag"), r.Header.Get("Server-Timing"))
		}
		if string(miss.Body) != string(r.Body) || string(hit.Body) != string(r.Body) {
			t.Fatalf("%s: answers differ with the cache on and off:\n  on %s\n off %s", q, miss.Body, r.Body)
		}
	}
}
