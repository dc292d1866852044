package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/platform"
)

// TestQueryByTrafficSourceAndProduct: over HTTP (every exchange checked against the OpenAPI
// document), traffic and order dimensions answer what the engine answers, missing values null;
// explain names the business tables; an ad-network metric beside them is a 400 naming the pair.
func TestQueryByTrafficSourceAndProduct(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	loc, _ := time.LoadLocation(tn.project.Timezone)
	ds, err := enginetest.GenerateBusiness(5, []enginetest.BusinessProject{{ID: tn.project.ID, TimeZone: tn.project.Timezone,
		Currency: tn.project.Currency, Start: e.clock.Now().In(loc).AddDate(0, 0, -14), Days: 14, Foreign: []string{"USD"},
		Events: 200, Orders: 80}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(context.Background(), e.ch); err != nil {
		t.Fatal(err)
	}
	svc := engine.New(e.ch, engine.Options{Clock: e.clock})
	scope := engine.Scope{ProjectID: tn.project.ID, Currency: tn.project.Currency, TimeZone: tn.project.Timezone, SubHour: true,
		ConnectionIDs: []string{tn.alpha.ID, tn.custom.ID}}
	// Each body with the business table explain names: three dimensions read the wide rollup,
	// one by a level the per-dimension rollup by ad entity.
	tables := map[string]string{
		`{"fields":["tx_revenue","tx_count","leads"],"time":{"start":"2026-02-25","end":"2026-03-09","granularity":"week"},"metadata":{"dimensions":["utm_source","device"]},"filters":[{"member":"utm_medium","operator":"notSet"}]}`: "business_daily",
		`{"fields":["tx_revenue","tx_units","aov"],"time":{"start":"2026-02-25","end":"2026-03-09"},"metadata":{"dimensions":["product_name"],"revenue":"net","level":"campaign"},"total":true}`:                                       "business_dim_entity_daily",
	}
	for body, table := range tables {
		var in engine.QueryInput
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		in.ProjectID = tn.project.ID
		want, err := svc.Query(context.Background(), scope, in)
		if err != nil {
			t.Fatal(err)
		}
		r := e.do("POST", "/v3/query", in, bearer(tn.readKey)...)
		wantData, _ := json.Marshal(want.Data)
		if r.Status != 200 || !strings.Contains(string(r.Body), `"data":`+string(wantData)) || len(want.Data) == 0 {
			t.Fatalf("%s: %d %s\nwant %s", body, r.Status, r.Body, wantData)
		}
		if !strings.Contains(string(wantData), `":null`) {
			t.Fatalf("%s: no missing value shown as null: %s", body, wantData)
		}
		x := e.do("POST", "/v3/query/explain", in, bearer(tn.readKey)...)
		if x.Status != 200 || !strings.Contains(string(x.Body), `"table":"`+table+`"`) {
			t.Fatalf("explain %s: %d %s", body, x.Status, x.Body)
		}
	}
	errObj := wantError(t, e.do("POST", "/v3/query", `{"project_id":"`+tn.project.ID+`","fields":["tx_revenue","roas"],"metadata":{"dimensions":["utm_campaign"]}}`,
		bearer(tn.readKey)...), 400, "validation_error", "invalid_parameter")
	if d := errObj["details"].([]any); len(d) != 1 || d[0] != `fields[1]: ad-network metric "roas" cannot be asked with dimension "utm_campaign"` {
		t.Fatalf("details %v", d)
	}
}

// TestQueryViewsOverProductionTraffic: over events and orders sent as a browser and a checkout
// send them (productionTraffic: one page view and one order attributed to an ad, the rest not),
// the ad view answers the attributed facts whether it reads the ad facts or, for tx_units or a
// stated gross basis, the business family's attributed rows, so the two families agree; the
// traffic view ("dimensions": []) counts every event and order, and its rows by a dimension sum
// to it.
func TestQueryViewsOverProductionTraffic(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	e.productionTraffic(a)
	ask := func(fields []string, metadata string) []map[string]any {
		t.Helper()
		f, _ := json.Marshal(fields)
		body := `{"project_id":"` + a.project.ID + `","fields":` + string(f) + `,"time":{"start":"2026-03-09","end":"2026-03-11"},"metadata":{` + metadata + `}}`
		r := e.do("POST", "/v3/query", body, bearer(a.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", body, r.Status, r.Body)
		}
		var out struct{ Data []map[string]any }
		if err := json.Unmarshal(r.Body, &out); err != nil {
			t.Fatal(err)
		}
		return out.Data
	}
	fields := []string{"tx_revenue", "tx_count", "page_views", "leads"}
	pick := func(rows []map[string]any, keys ...string) string {
		var out []string
		for _, r := range rows {
			for _, k := range keys {
				b, _ := json.Marshal(r[k])
				out = append(out, k+"="+string(b))
			}
		}
		return strings.Join(out, " ")
	}
	// The attributed facts: pv-1 (ad 902 of campaign 900) and o-2 (campaign 900, approved 59.90,
	// 3 units); nothing else is linked to an ad.
	const attributed = `tx_revenue=59.9 tx_count=1 page_views=1 leads=0`
	for _, level := range []string{"", `"level":"campaign"`, `"level":"ad"`} {
		adFacts := ask(fields, level)
		if level == "" && pick(adFacts, fields...) != attributed {
			t.Fatalf("ad view: %s, want %s", pick(adFacts, fields...), attributed)
		}
		keys := append([]string{"campaign_id", "ad_id", "source"}, fields...)
		for _, meta := range []string{strings.TrimPrefix(level+`,"revenue":"gross"`, ","), level} {
			withUnits := ask(append(fields, "tx_units"), meta)
			if a, b := pick(withUnits, keys...), pick(adFacts, keys...); a != b {
				t.Errorf("ad view {%s}: the business family's attributed rows %s, the ad facts' %s", meta, a, b)
			}
			if level == "" && pick(withUnits, "tx_units") != "tx_units=3" {
				t.Errorf("ad view tx_units: %s, want 3", pick(withUnits, "tx_units"))
			}
		}
		if gross := ask(fields, strings.TrimPrefix(level+`,"revenue":"gross"`, ",")); pick(gross, keys...) != pick(adFacts, keys...) {
			t.Errorf("ad view {%s}: gross stated %s, omitted %s", level, pick(gross, keys...), pick(adFacts, keys...))
		}
	}
	// The traffic view: o-1 (10.00) and o-2 approved, o-3 refunded; every page view and lead.
	total := ask(fields, `"dimensions":[]`)
	if got := pick(total, fields...); got != `tx_revenue=69.9 tx_count=2 page_views=6 leads=2` {
		t.Fatalf("traffic view: %s", got)
	}
	if got := pick(ask(append(fields, "tx_units"), `"dimensions":[],"revenue":"gross"`), fields...); got != pick(total, fields...) {
		t.Errorf("traffic view with tx_units and gross: %s, total %s", got, pick(total, fields...))
	}
	for _, d := range []string{"utm_source", "device", "payment_method", "customer_type"} {
		sums := map[string]float64{}
		for _, r := range ask(fields, `"dimensions":["`+d+`"]`) {
			for _, f := range fields {
				sums[f] += r[f].(float64)
			}
		}
		for _, f := range fields {
			if want := total[0][f].(float64); fmt.Sprintf("%.2f", sums[f]) != fmt.Sprintf("%.2f", want) {
				t.Errorf("by %s: %s sums to %v, total %v", d, f, sums[f], want)
			}
		}
	}
}
