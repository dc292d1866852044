package api_test

import (
	"fmt"
	"strings"
	"testing"

	"mtk/platform"
)

// bigList is n copies of the JSON value item, as a JSON array.
func bigList(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
}

// A query body past a cap (CONTRACT "Hostile input") is a short 400 naming the member, on both
// query routes, checked before the project is looked up or any statement is built: one filter of
// 100,000 values was a 500 (ClickHouse's "Max query size exceeded"), and 100,000 fields answered
// 4.4 MB of details.
func TestQueryCapsOverHTTP(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	values := `{"project_id":"` + tn.project.ID + `","fields":["spend"],"filters":[{"member":"campaign_name","operator":"equals","values":` +
		bigList(`"x"`, 100_000) + `}]}`
	cases := []struct {
		name, path, body, detail string
	}{
		{"100,000 values", "/v3/query", values, "filters[0].values: 100000 values, at most 100"},
		{"100,000 values explained", "/v3/query/explain", values, "filters[0].values: 100000 values, at most 100"},
		{"100,000 fields", "/v3/query", `{"project_id":"` + tn.project.ID + `","fields":` + bigList(`"nope"`, 100_000) + `}`,
			"fields: 100000 fields, at most 50"},
		{"21 filters", "/v3/query", `{"project_id":"` + tn.project.ID + `","fields":["spend"],"filters":` +
			bigList(`{"member":"source","operator":"set"}`, 21) + `}`, "filters: 21 filters, at most 20"},
		{"a value of 1,001 bytes", "/v3/query", `{"project_id":"` + tn.project.ID + `","fields":["spend"],"filters":[{"member":"ad_name","operator":"contains","values":["` +
			strings.Repeat("a", 1001) + `"]}]}`, "filters[0].values[0]: 1001 bytes, at most 1000"},
		{"before the project is looked up", "/v3/query", `{"project_id":"prj_nope","fields":["spend"],"filters":[{"member":"source","operator":"equals","values":` +
			bigList(`"alpha_ads"`, 101) + `}]}`, "filters[0].values: 101 values, at most 100"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.do("POST", c.path, c.body, bearer(tn.readKey)...)
			errObj := wantError(t, r, 400, "validation_error", "invalid_parameter")
			if fmt.Sprint(errObj["details"]) != "["+c.detail+"]" {
				t.Fatalf("details %v, want [%s]", errObj["details"], c.detail)
			}
			if len(r.Body) > 1000 {
				t.Fatalf("a %d-byte answer", len(r.Body))
			}
		})
	}
}

// An error shows at most 20 detail lines, then one counting the rest, on every route (the one
// renderer of errors): 30 unknown metrics are 20 lines and "... and 10 more".
func TestErrorDetailsAreCut(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	body := `{"project_id":"` + tn.project.ID + `","fields":["spend"` + strings.Repeat(`,"nope"`, 30) + `]}`
	errObj := wantError(t, e.do("POST", "/v3/query", body, bearer(tn.readKey)...), 400, "validation_error", "invalid_parameter")
	details, _ := errObj["details"].([]any)
	if len(details) != 21 || details[0] != `fields[1]: unknown metric "nope"` || details[19] != `fields[20]: unknown metric "nope"` ||
		details[20] != "... and 10 more" {
		t.Fatalf("details %v", details)
	}
	body = `{"project_id":"` + tn.project.ID + `","fields":["spend"` + strings.Repeat(`,"nope"`, 20) + `]}`
	errObj = wantError(t, e.do("POST", "/v3/query", body, bearer(tn.readKey)...), 400, "validation_error", "invalid_parameter")
	if details, _ := errObj["details"].([]any); len(details) != 20 || details[19] != `fields[20]: unknown metric "nope"` {
		t.Fatalf("20 problems: details %v", details)
	}
}

// A query at the caps is answered: 9 filters of 100 values of 1,000 bytes (as much as a 1 MiB
// body holds), with day spans and names, bound into statements longer than ClickHouse's
// default max_query_size, which refused 3 of them with a 500.
func TestQueryAtCapsIsAnswered(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	e.seedFacts(tn)
	value := `"` + strings.Repeat("a", 1000) + `"`
	f := `{"member":"campaign_name","operator":"equals","values":` + bigList(value, 100) + `}`
	body := `{"project_id":"` + tn.project.ID + `","fields":["spend","tx_revenue"],"metadata":{"level":"campaign"},` +
		`"time":{"range":"last_14_days","granularity":"hour"},"filters":` + bigList(f, 9) + `}`
	for _, path := range []string{"/v3/query", "/v3/query/explain"} {
		if r := e.do("POST", path, body, bearer(tn.readKey)...); r.Status != 200 {
			t.Fatalf("%s: %d %.300s", path, r.Status, r.Body)
		}
	}
}
