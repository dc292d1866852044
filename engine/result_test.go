package engine_test

import (
	"encoding/json"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"mtk/engine"
)

// TestRowJSONIsEncodingJSON checks that a row's fast path writes what encoding/json writes for
// each member, including strings that need escaping, random ratios and amounts, and that a
// non-finite ratio is an error.
func TestRowJSONIsEncodingJSON(t *testing.T) {
	ratio, tiny, big, negative, small, zero := 2.0/3, 1e-9, 1e21, -3.5e-7, 1.5e-6, 0.0
	values := []any{"2024-03-01T10:00:00-03:00", nil, `Café "<b>" & \ tab	x` + "\u2028\x01", "alpha_ads",
		engine.Money{Decimal: decimal.RequireFromString("-1234567.5")}, int64(-42), &ratio, (*float64)(nil), &tiny, &big,
		&negative, &small, &zero}
	keys := []string{"date", "ad_id", "ad_name", "source", "spend", "clicks", "ctr", "cpc", "roas", "frequency",
		"roi", "hook_rate", "cta_rate"}
	got, err := json.Marshal(engine.Row{Keys: keys, Values: values})
	if err != nil {
		t.Fatal(err)
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		kb, _ := json.Marshal(k)
		vb, err := json.Marshal(values[i])
		if err != nil {
			t.Fatal(err)
		}
		parts[i] = string(kb) + ":" + string(vb)
	}
	if want := "{" + strings.Join(parts, ",") + "}"; string(got) != want {
		t.Fatalf("row JSON\n got %s\nwant %s", got, want)
	}
	r := rand.New(rand.NewSource(1))
	for range 20000 {
		f := r.NormFloat64() * math.Pow(10, float64(r.Intn(60)-30))
		got, _ := json.Marshal(engine.Row{Keys: []string{"x"}, Values: []any{&f}})
		want, _ := json.Marshal(f)
		if string(got) != `{"x":`+string(want)+`}` {
			t.Fatalf("%v: got %s, want %s", f, got, want)
		}
	}
	for range 20000 {
		m := engine.Money{Decimal: decimal.New(r.Int63n(1<<62)-1<<61, -int32(r.Intn(10))).Shift(-int32(r.Intn(8))).Round(2)}
		if r.Intn(10) == 0 {
			m = engine.Money{Decimal: decimal.New(r.Int63(), 0).Mul(decimal.New(r.Int63(), -2))} // past int64
		}
		got, _ := json.Marshal(engine.Row{Keys: []string{"x"}, Values: []any{m}})
		if want := `{"x":` + m.StringFixed(2) + `}`; string(got) != want {
			t.Fatalf("%v: got %s, want %s", m, got, want)
		}
	}
	nan := math.NaN()
	if _, err := json.Marshal(engine.Row{Keys: []string{"ctr"}, Values: []any{&nan}}); err == nil {
		t.Fatal("a NaN ratio must not encode")
	}
}
