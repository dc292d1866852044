package engine

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"mtk/internal/clock"
)

// TestKeptPreparedIsWhatCompilingGives: a checked query asked again is served from the kept
// queries, and whatever the clock says it is the query a fresh compilation gives: a named range
// moves at the project's midnight (not UTC's), and a range that ends at now changes its warnings
// once it has ended.
func TestKeptPreparedIsWhatCompilingGives(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 3, 10, 2, 30, 0, 0, time.UTC)) // 23:30 on the 9th in São Paulo
	s := New(nil, Options{Clock: clk})
	scope := Scope{ProjectID: "prj_k", Currency: "BRL", TimeZone: "America/Sao_Paulo", ConnectionIDs: []string{"con_a"}}
	check := func(body string) {
		t.Helper()
		var in QueryInput
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		in.ProjectID = scope.ProjectID
		in, err := in.Check()
		if err != nil {
			t.Fatal(err)
		}
		key, keep := prepareKey(scope, in, clk.Now())
		if !keep {
			t.Fatalf("%s: a checked query is not kept", body)
		}
		kept, err := s.Prepare(scope, in)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.prepared.Get(key, time.Now()); !ok {
			t.Fatalf("%s: not kept after Prepare", body)
		}
		again, err := s.Prepare(scope, in)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := s.prepare(scope, in, clk.Now(), time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if kept.Key() != fresh.Key() || again.Key() != fresh.Key() || again.c != kept.c {
			t.Fatalf("%s at %s: the kept query is not the compiled one", body, clk.Now())
		}
	}
	bodies := []string{
		`{"fields":["spend","clicks"],"time":{"range":"today","granularity":"hour"}}`,
		`{"fields":["spend"],"time":{"range":"last_7_days","granularity":"day","compare":"previous_period"}}`,
		`{"fields":["spend"],"time":{"start":"2026-03-09T22:10:00","end":"2026-03-09T23:40:00"}}`,
		`{"fields":["spend"]}`,
	}
	var keys [][32]byte
	for _, step := range []time.Duration{0, 40 * time.Minute, time.Hour, 24 * time.Hour} {
		clk.Advance(step)
		for _, b := range bodies {
			check(b)
		}
		var in QueryInput
		json.Unmarshal([]byte(bodies[0]), &in) //nolint:errcheck // a literal
		in.ProjectID = scope.ProjectID
		in, _ = in.Check()
		key, _ := prepareKey(scope, in, clk.Now())
		keys = append(keys, key)
	}
	if keys[0] == keys[1] || keys[1] != keys[2] {
		t.Fatal("today's key does not move at the project's midnight alone")
	}
}

// TestPreparedKeysCoverTheScope: changing any member of the scope (each found by reflection, so
// a member added later is covered) changes the kept query's key, and so does moving a value
// from one string member to the next (the members are length-prefixed).
func TestPreparedKeysCoverTheScope(t *testing.T) {
	now := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	in, err := QueryInput{ProjectID: "prj_k", Fields: []string{"spend"}}.Check()
	if err != nil {
		t.Fatal(err)
	}
	base := Scope{ProjectID: "prj_k", Currency: "BRL", TimeZone: "UTC", ConnectionIDs: []string{"con_a"}}
	key := func(sc Scope) [32]byte {
		t.Helper()
		k, ok := prepareKey(sc, in, now)
		if !ok {
			t.Fatalf("scope %+v: not kept", sc)
		}
		return k
	}
	want := key(base)
	typ := reflect.TypeOf(base)
	for i := range typ.NumField() {
		sc := base
		sc.ConnectionIDs = slices.Clone(base.ConnectionIDs)
		f := reflect.ValueOf(&sc).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
			if typ.Field(i).Name == "TimeZone" { // another valid zone: an unknown one is not kept
				f.SetString("Europe/Berlin")
			}
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Slice:
			f.Set(reflect.Append(f, reflect.ValueOf("con_b")))
		default:
			t.Fatalf("Scope.%s: a %s member; teach Scope.appendKey and this test to key it", typ.Field(i).Name, f.Kind())
		}
		if key(sc) == want {
			t.Errorf("Scope.%s changed and the key did not", typ.Field(i).Name)
		}
	}
	if key(Scope{ProjectID: "prj_kB", Currency: "RL", TimeZone: "UTC"}) == key(Scope{ProjectID: "prj_k", Currency: "BRL", TimeZone: "UTC"}) {
		t.Error("a value moved between members keeps the key")
	}
}
