package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"mtk/engine"
	"mtk/internal/apperr"
)

// jsonList is n copies of the JSON value item, as a JSON array.
func jsonList(item string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + "]"
}

// A list past its cap (CONTRACT "Hostile input") is one detail line naming the member, however
// long the list: none of its items is looked at.
func TestQueryCaps(t *testing.T) {
	const ok = `"project_id":"prj_1","fields":["spend"]`
	filter := func(values string) string {
		return `{` + ok + `,"filters":[{"member":"campaign_name","operator":"equals","values":["a"]},` +
			`{"member":"campaign_name","operator":"equals","values":["a"]},` +
			`{"member":"campaign_name","operator":"equals","values":["a"]},` +
			`{"member":"campaign_name","operator":"equals","values":` + values + `}]}`
	}
	long := `"` + strings.Repeat("x", engine.MaxValueBytes+1) + `"`
	cases := []struct {
		name, body string
		details    []string
	}{
		{"51 fields", `{"project_id":"prj_1","fields":` + jsonList(`"spend"`, 51) + `}`,
			[]string{"fields: 51 fields, at most 50"}},
		{"100,000 fields", `{"project_id":"prj_1","fields":` + jsonList(`"nope"`, 100_000) + `}`,
			[]string{"fields: 100000 fields, at most 50"}},
		{"21 filters", `{` + ok + `,"filters":` + jsonList(`{"member":"source","operator":"set"}`, 21) + `}`,
			[]string{"filters: 21 filters, at most 20"}},
		{"101 values", filter(jsonList(`"a"`, 101)), []string{"filters[3].values: 101 values, at most 100"}},
		{"150 values", filter(jsonList(`"a"`, 150)), []string{"filters[3].values: 150 values, at most 100"}},
		{"100,000 values", filter(jsonList(`"a"`, 100_000)), []string{"filters[3].values: 100000 values, at most 100"}},
		{"a value of 1,001 bytes", filter(`["a",` + long + `]`), []string{"filters[3].values[1]: 1001 bytes, at most 1000"}},
		{"a metric value of 1,001 bytes", `{` + ok + `,"filters":[{"member":"spend","operator":"gt","values":["` +
			strings.Repeat("1", engine.MaxValueBytes+1) + `"]}]}`, []string{"filters[0].values[0]: 1001 bytes, at most 1000"}},
		{"101 connection ids", `{` + ok + `,"connection_ids":` + jsonList(`""`, 101) + `}`,
			[]string{"connection_ids: 101 ids, at most 100"}},
		{"order longer than the rows' keys", `{` + ok + `,"order":{"a":"asc","b":"asc"}}`,
			[]string{"order: 2 members, at most 1 (each field or row key once)"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := mustInput(t, tc.body).Validate()
			if e == nil || e.Status != 400 || e.Code != apperr.CodeInvalidParameter || fmt.Sprint(e.Details) != fmt.Sprint(tc.details) {
				t.Fatalf("%v, want 400 invalid_parameter %q", e, tc.details)
			}
		})
	}
}

// At the caps a query is valid: 20 filters, 100 values of 1,000 bytes each.
func TestQueryAtCapsPasses(t *testing.T) {
	value, _ := json.Marshal(strings.Repeat("é", engine.MaxValueBytes/2))
	filters := jsonList(`{"member":"campaign_name","operator":"equals","values":`+jsonList(string(value), engine.MaxFilterValues)+`}`, engine.MaxFilters)
	body := `{"project_id":"prj_1","fields":["spend"],"filters":` + filters + `}`
	if _, err := engine.Compile(testScope, mustInput(t, body), testNow); err != nil {
		t.Fatal(err)
	}
}
