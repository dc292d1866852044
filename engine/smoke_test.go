package engine_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

func TestSmoke(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds, err := enginetest.Generate(enginetest.Config{Seed: 1, Projects: []enginetest.ProjectSpec{
		{ID: "prj_a", TimeZone: "Asia/Kolkata", Currency: "BRL", Start: time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC), Days: 5,
			AccountCurrencies: map[string]string{"beta_ads": "USD"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ds.Write(ctx, ch.Conn); err != nil {
		t.Fatal(err)
	}
	svc := engine.New(ch.Conn, engine.Options{Clock: clock.NewFake(time.Date(2024, 3, 6, 0, 0, 0, 0, time.UTC))})
	p := ds.Projects[0]
	scope := engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.TimeZone, Tier: "growth", ConnectionIDs: p.ConnectionIDs}
	for _, body := range []string{
		`{"project_id":"prj_a","fields":["spend","impressions","ctr","cpc","reach","frequency","profit","roas"]}`,
		`{"project_id":"prj_a","fields":["spend","clicks"],"time":{"start":"2024-03-01","end":"2024-03-03","granularity":"day"}}`,
		`{"project_id":"prj_a","fields":["spend","clicks"],"time":{"start":"2024-03-01T10:00:00","end":"2024-03-01T12:00:00","granularity":"15min"}}`,
		`{"project_id":"prj_a","fields":["spend","tx_revenue","cpa"],"time":{"start":"2024-03-01","end":"2024-03-05","granularity":"week"},"metadata":{"level":"campaign","convert_to_currency":"EUR"},"filters":[{"member":"campaign_name","operator":"contains","values":["summer"]},{"member":"spend","operator":"gt","values":["10"]}],"limit":3}`,
		`{"project_id":"prj_a","fields":["impressions"],"time":{"start":"2024-03-01T10:00:00","end":"2024-03-01T14:00:00","granularity":"hour"},"metadata":{"level":"ad"},"order":{"ad_name":"asc","impressions":"desc"},"limit":5}`,
	} {
		var in engine.QueryInput
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		c, err := engine.Compile(scope, in, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		t.Log(c.Attempts[0].Query.SQL)
		res, err := svc.Query(ctx, scope, in)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res)
		t.Log(string(b))
	}
}
