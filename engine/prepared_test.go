package engine

import (
	"encoding/json"
	"testing"
	"time"

	"mtk/internal/clock"
)

// TestPreparedKeys: a query's key holds its scope, its range as instants and the data version it
// is read at (so that single flight never hands a caller a run begun before a write it knows
// of); a query without time
// shares the key of its default range written out; another tier, currency, zone or connection
// list does not share; Days are the local days the range touches.
func TestPreparedKeys(t *testing.T) {
	s := New(nil, Options{Clock: clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))})
	scope := Scope{ProjectID: "prj_k", Currency: "BRL", TimeZone: "America/Sao_Paulo", ConnectionIDs: []string{"con_a"}}
	prepare := func(sc Scope, body string) *Prepared {
		t.Helper()
		var in QueryInput
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		in.ProjectID = sc.ProjectID
		p, err := s.Prepare(sc, in)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	const body = `{"fields":["spend","tx_revenue"],"time":{"start":"2026-03-01","end":"2026-03-10","granularity":"15min"}}`
	base := prepare(scope, body)
	if d := base.Days(); len(d) != 1 || d[0].First != time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) || d[0].After != time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("days %v", d)
	}
	if base.At(1).Key() == base.At(2).Key() || base.At(1).Key() == base.Key() || base.At(1).Key() != prepare(scope, body).At(1).Key() {
		t.Fatal("a data version does not key the query's answer (and its single flight) alone")
	}
	if prepare(scope, `{"fields":["spend"]}`).Key() != prepare(scope, `{"fields":["spend"],"time":{"start":"2026-02-09","end":"2026-03-10"}}`).Key() {
		t.Fatal("a query without time does not share its default range's key")
	}
	for name, sc := range map[string]Scope{
		"tier":        {ProjectID: "prj_k", Currency: "BRL", TimeZone: "America/Sao_Paulo", ConnectionIDs: []string{"con_a"}, SubHour: true},
		"currency":    {ProjectID: "prj_k", Currency: "USD", TimeZone: "America/Sao_Paulo", ConnectionIDs: []string{"con_a"}},
		"zone":        {ProjectID: "prj_k", Currency: "BRL", TimeZone: "UTC", ConnectionIDs: []string{"con_a"}},
		"connections": {ProjectID: "prj_k", Currency: "BRL", TimeZone: "America/Sao_Paulo", ConnectionIDs: []string{"con_a", "con_b"}},
		"project":     {ProjectID: "prj_other", Currency: "BRL", TimeZone: "America/Sao_Paulo", ConnectionIDs: []string{"con_a"}},
	} {
		if prepare(sc, body).Key() == base.Key() {
			t.Errorf("another %s shares the key", name)
		}
	}
}

// TestPreparedKeysUnderModels: each model, window and date keys its own answer, and a model's
// Days are its range's (credits sit on their own days: the order's, or by click date the
// touch's), by either date.
func TestPreparedKeysUnderModels(t *testing.T) {
	s := New(nil, Options{Clock: clock.NewFake(time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC))})
	scope := Scope{ProjectID: "prj_k", Currency: "BRL", TimeZone: "America/Sao_Paulo"}
	keys := map[string]string{}
	for _, attr := range []string{`{}`, `{"model":"linear"}`, `{"model":"last_click"}`, `{"model":"linear","window_days":7}`,
		`{"model":"linear","date":"click"}`} {
		var in QueryInput
		body := `{"project_id":"prj_k","fields":["tx_revenue"],"time":{"start":"2026-03-01","end":"2026-03-10"},"metadata":{"attribution":` + attr + `}}`
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		p, err := s.Prepare(scope, in)
		if err != nil {
			t.Fatal(err)
		}
		if other, ok := keys[p.Key()]; ok {
			t.Errorf("%s shares the key of %s", attr, other)
		}
		keys[p.Key()] = attr
		if d := p.Days(); len(d) != 1 || d[0].First != time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) || d[0].After != time.Date(2026, 3, 11, 0, 0, 0, 0, time.UTC) {
			t.Errorf("%s: days %v", attr, d)
		}
	}
}
