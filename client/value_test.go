package client_test

import (
	"encoding/json"
	"testing"

	"mtk/client"
)

func TestValueKeepsNumbersExact(t *testing.T) {
	var row client.Row
	body := `{"date":"2026-03-01","campaign_id":null,"spend":90071992547409.93,"tx_revenue":0.10,"clicks":9007199254740993,"ctr":0.0123}`
	if err := json.Unmarshal([]byte(body), &row); err != nil {
		t.Fatal(err)
	}
	// 90071992547409.93 is not a float64: decimal keeps every cent.
	if d, err := row["spend"].Decimal(); err != nil || d.String() != "90071992547409.93" {
		t.Fatalf("spend %s, %v", d, err)
	}
	if d, err := row["tx_revenue"].Decimal(); err != nil || d.StringFixed(2) != "0.10" {
		t.Fatalf("tx_revenue %s, %v", d, err)
	}
	if n, err := row["clicks"].Int(); err != nil || n != 9007199254740993 {
		t.Fatalf("clicks %d, %v", n, err)
	}
	if f, err := row["ctr"].Float(); err != nil || f != 0.0123 {
		t.Fatalf("ctr %v, %v", f, err)
	}
	if row["date"].String() != "2026-03-01" || !row["campaign_id"].IsNull() || row["campaign_id"].String() != "" || !row["absent"].IsNull() {
		t.Fatalf("keys: %q %q", row["date"].String(), row["campaign_id"].Raw())
	}
	if _, err := row["campaign_id"].Decimal(); err == nil {
		t.Fatal("a null read as a decimal")
	}
	if _, err := row["date"].Int(); err == nil {
		t.Fatal("a string read as an integer")
	}
	out, err := json.Marshal(row)
	if err != nil {
		t.Fatal(err)
	}
	var back client.Row
	if err := json.Unmarshal(out, &back); err != nil || string(back["spend"].Raw()) != "90071992547409.93" {
		t.Fatalf("round trip %s: %v", out, err)
	}
}

// TestRowComparison: a compared row's "compare" reads as a Row of exact values and its "change"
// as ratios, null as nil; a row without a comparison has neither.
func TestRowComparison(t *testing.T) {
	var row client.Row
	body := `{"spend":100.10,"roas":2,"compare":{"spend":90071992547409.93,"roas":null},"change":{"spend":-0.5,"roas":null}}`
	if err := json.Unmarshal([]byte(body), &row); err != nil {
		t.Fatal(err)
	}
	if d, err := row.Compare()["spend"].Decimal(); err != nil || d.String() != "90071992547409.93" || !row.Compare()["roas"].IsNull() {
		t.Fatalf("compare %v: %s, %v", row.Compare(), d, err)
	}
	change := row.Change()
	if len(change) != 2 || change["spend"] == nil || *change["spend"] != -0.5 || change["roas"] != nil {
		t.Fatalf("change %v", change)
	}
	plain := client.Row{}
	if err := json.Unmarshal([]byte(`{"spend":1}`), &plain); err != nil {
		t.Fatal(err)
	}
	if plain.Compare() != nil || plain.Change() != nil {
		t.Fatalf("a row without a comparison: %v, %v", plain.Compare(), plain.Change())
	}
}

func TestErrorText(t *testing.T) {
	e := &client.Error{StatusCode: 400, Type: client.ErrorTypeValidation, Code: client.CodeInvalidParameter,
		Message: "The query is invalid.", Details: []string{`fields[1]: unknown metric "foo"`, "limit: must be between 1 and 50000"},
		RequestID: "req_1"}
	want := `mtk: 400 validation_error/invalid_parameter: The query is invalid. (fields[1]: unknown metric "foo"; limit: must be between 1 and 50000) [request req_1]`
	if e.Error() != want {
		t.Fatalf("got  %s\nwant %s", e.Error(), want)
	}
}
