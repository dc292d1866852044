package api_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"mtk/platform"
)

// TestQueryCompareEqualsThePeriodAlone: every row's compare holds what the comparison period
// answers queried alone (totals, a daily series paired by position, campaigns paired by id, money
// converted at the period's own rates), change is computed from the two, and compare_time names
// the period.
func TestQueryCompareEqualsThePeriodAlone(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	e.seedFacts(tn)
	type answer struct {
		Data        []map[string]any  `json:"data"`
		CompareTime map[string]string `json:"compare_time"`
		Warnings    []string          `json:"warnings"`
	}
	ask := func(body string) answer {
		t.Helper()
		r := e.do("POST", "/v3/query", `{"project_id":"`+tn.project.ID+`",`+body+`}`, bearer(tn.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", body, r.Status, r.Body)
		}
		var a answer
		if err := json.Unmarshal(r.Body, &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	fields := []string{"spend", "clicks", "ctr", "tx_revenue", "roas"}
	const fieldList = `"fields":["spend","clicks","ctr","tx_revenue","roas"]`
	for _, c := range []struct {
		name, shape, compare string
		wantTime             map[string]string
		key                  func(i int, row map[string]any) string
	}{
		{"totals, previous period", ``, `"previous_period"`, map[string]string{"start": "2026-03-02", "end": "2026-03-05"},
			func(int, map[string]any) string { return "total" }},
		{"daily series, explicit period", `,"granularity":"day"`, `{"start":"2026-02-25","end":"2026-02-28"}`,
			map[string]string{"start": "2026-02-25", "end": "2026-02-28"}, func(i int, _ map[string]any) string { return fmt.Sprint(i) }},
		{"campaigns in USD, previous period", `},"metadata":{"level":"campaign","convert_to_currency":"USD"`, `"previous_period"`,
			map[string]string{"start": "2026-03-02", "end": "2026-03-05"}, func(_ int, row map[string]any) string { return fmt.Sprint(row["source"], row["campaign_id"]) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			timeOf := func(start, end string, compare string) string {
				s := `"time":{"start":"` + start + `","end":"` + end + `"`
				if compare != "" {
					s += `,"compare":` + compare
				}
				return s + c.shape + `}`
			}
			got := ask(fieldList + `,` + timeOf("2026-03-06", "2026-03-09", c.compare))
			if fmt.Sprint(got.CompareTime) != fmt.Sprint(c.wantTime) {
				t.Fatalf("compare_time %v, want %v", got.CompareTime, c.wantTime)
			}
			alone := ask(fieldList + `,` + timeOf(c.wantTime["start"], c.wantTime["end"], ""))
			byKey := map[string]map[string]any{}
			for i, row := range alone.Data {
				byKey[c.key(i, row)] = row
			}
			if len(got.Data) == 0 {
				t.Fatal("no rows")
			}
			paired := 0
			for i, row := range got.Data {
				cmp, _ := row["compare"].(map[string]any)
				chg, _ := row["change"].(map[string]any)
				want, ok := byKey[c.key(i, row)]
				for _, f := range fields {
					var w any
					if ok {
						w = want[f]
					}
					if fmt.Sprint(cmp[f]) != fmt.Sprint(w) {
						t.Errorf("row %d %s: compare %v, the period alone %v", i, f, cmp[f], w)
					}
					v, isNum := row[f].(float64)
					cv, cmpNum := cmp[f].(float64)
					var wantChange any
					if isNum && cmpNum && cv != 0 {
						d := (v - cv) / abs(cv)
						wantChange = d
					}
					if gc, _ := chg[f].(float64); wantChange != nil && (chg[f] == nil || diff(gc, wantChange.(float64)) > 1e-9) ||
						wantChange == nil && chg[f] != nil {
						t.Errorf("row %d %s: change %v, want %v (value %v, compare %v)", i, f, chg[f], wantChange, row[f], cmp[f])
					}
				}
				if ok {
					paired++
				}
			}
			if paired == 0 {
				t.Fatal("no row found its comparison: the test tells nothing")
			}
		})
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func diff(a, b float64) float64 { return abs(a - b) }
