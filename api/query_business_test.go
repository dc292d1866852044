package api

import (
	"context"
	"encoding/json"
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
	bodies := []string{
		`{"fields":["tx_revenue","tx_count","leads"],"time":{"start":"2026-02-25","end":"2026-03-09","granularity":"week"},"metadata":{"dimensions":["utm_source","device"]},"filters":[{"member":"utm_medium","operator":"notSet"}]}`,
		`{"fields":["tx_revenue","tx_units","aov"],"time":{"start":"2026-02-25","end":"2026-03-09"},"metadata":{"dimensions":["product_name"],"revenue":"net","level":"campaign"},"total":true}`,
	}
	for _, body := range bodies {
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
		if x.Status != 200 || !strings.Contains(string(x.Body), `"table":"business_daily"`) {
			t.Fatalf("explain %s: %d %s", body, x.Status, x.Body)
		}
	}
	errObj := wantError(t, e.do("POST", "/v3/query", `{"project_id":"`+tn.project.ID+`","fields":["tx_revenue","roas"],"metadata":{"dimensions":["utm_campaign"]}}`,
		bearer(tn.readKey)...), 400, "validation_error", "invalid_parameter")
	if d := errObj["details"].([]any); len(d) != 1 || d[0] != `fields[1]: ad-network metric "roas" cannot be asked with dimension "utm_campaign"` {
		t.Fatalf("details %v", d)
	}
}
