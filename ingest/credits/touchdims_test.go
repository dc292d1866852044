package credits_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"mtk/facts"
	"mtk/ingest/credits"
	"mtk/ingest/journeys"
)

// The worker reads each touch once with its traffic dimensions: a touch stored before them and
// written again with them by the journeys backfill is one touch; a marketing touch on no ad entity
// is credited too, facts.Credits splitting the touch sets (the ad touches' credits of the set
// "ads" stay as they were).
func TestWorkerReadsTouchDims(t *testing.T) {
	s := newStores(t)
	ctx := context.Background()
	now := s.clk.Now()
	zone := "America/Sao_Paulo"
	adAt, mailAt := now.Add(-50*time.Hour), now.Add(-2*time.Hour)
	adDims := facts.TouchDims{UTMSource: "alpha", UTMCampaign: "Spring|c1", ReferrerHost: "l.facebook.com", LandingPath: "/p", Device: "mobile"}
	mailDims := facts.TouchDims{UTMSource: "email", UTMMedium: "newsletter", LandingPath: "/sale", Device: "desktop"}
	s.queue(journeys.TouchRow(project, zone, journeys.OriginEvent, "ev-ad", "ld_1", adAt, ad, facts.TouchDims{}))
	s.queue(journeys.TouchRow(project, zone, journeys.OriginEvent, "ev-ad", "ld_1", adAt, ad, adDims),
		journeys.TouchRow(project, zone, journeys.OriginEvent, "ev-mail", "ld_1", mailAt, facts.AdEntity{}, mailDims))
	o := s.order("con_1/tx-1", "ld_1", now.Add(-time.Hour), 1000)
	w := credits.New(s.pool, s.ch, s.clk, nil)
	if n, err := w.RunOnce(ctx); err != nil || n != 1 {
		t.Fatalf("run: %d orders (%v), want 1", n, err)
	}
	if _, err := s.credits.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if err := s.pool.QueryRow(ctx, "SELECT journey FROM order_credits WHERE order_id = 'con_1/tx-1'").Scan(&raw); err != nil {
		t.Fatal(err)
	}
	var got facts.OrderJourney
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := []facts.Touch{{Time: adAt, Entity: ad, Dims: adDims}, {Time: mailAt, Dims: mailDims}}
	if !reflect.DeepEqual(got.Touches, want) {
		t.Fatalf("credited touches %+v, want %+v", got.Touches, want)
	}
	o.Touches = want
	s.check("every touch", o)
}
