package answers

import (
	"testing"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/internal/jsonx"
)

// TestQueryBodyIsWhatEncodingJSONWrites pins the hand-assembled answer to encoding/json's bytes,
// with values that need escaping, nulls, money and ratios.
func TestQueryBodyIsWhatEncodingJSONWrites(t *testing.T) {
	ratio := 0.1 + 0.2
	tiny := 1e-9
	keys := []string{"date", "ad_id", "ad_name", "source", "spend", "clicks", "ctr", "cpc"}
	res := &engine.Result{
		Data: []engine.Row{
			{Keys: keys, Values: []any{"2024-03-01", "ad_1", `Café "<b>" & \ tab	x` + "\u2028", "alpha_ads",
				engine.Money{Decimal: decimal.RequireFromString("-12.3")}, int64(42), &ratio, nil}},
			{Keys: keys, Values: []any{"2024-03-02", nil, nil, "beta_ads",
				engine.Money{Decimal: decimal.Zero}, int64(0), (*float64)(nil), &tiny}},
		},
		Currency: "BRL", View: engine.ViewAds, Warnings: []string{"no exchange rate from USD to BRL <x>"}, HasMore: true,
	}
	got, err := encodeResult(res)
	if err != nil {
		t.Fatal(err)
	}
	want, err := jsonx.Marshal(struct {
		Success  bool         `json:"success"`
		Data     []engine.Row `json:"data"`
		Currency string       `json:"currency"`
		View     string       `json:"view"`
		Warnings []string     `json:"warnings"`
		HasMore  bool         `json:"has_more"`
	}{true, res.Data, res.Currency, res.View, res.Warnings, res.HasMore})
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("body\n got %s\nwant %s", got, want)
	}
}
