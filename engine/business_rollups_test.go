package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"mtk/engine"
)

// TestBusinessRollupChoice: a traffic query reads the rollups of the fewest rows that hold what
// it asks: about one dimension the per-dimension rollups; about two paired dimensions (grouped
// or filtered, named in any order) the pair rollups, under the pair's own order; one dimension
// by a level, a source or connections the per-dimension rollups by ad entity; anything else
// (an unpaired dimension in a pair, two dimensions by a level, the ad view) the wide rollups. The
// pair and entity forms are daily only: an hour series reads the wide hourly rollup.
func TestBusinessRollupChoice(t *testing.T) {
	scope := engine.Scope{ProjectID: "prj_r", Currency: "BRL", TimeZone: "America/Sao_Paulo", SubHour: true,
		ConnectionIDs: []string{"con_a"}}
	const days = `"time":{"start":"2024-03-01","end":"2024-03-07","granularity":"day"}`
	const hours = `"time":{"start":"2024-03-01T10:00:00","end":"2024-03-01T18:00:00","granularity":"hour"}`
	for _, tc := range []struct {
		body, table string
		pair        []any // the dimension_a and dimension_b bound, for the pair rollups
	}{
		{`"metadata":{"dimensions":["utm_source"]}`, "business_dim_daily", nil},
		{`"metadata":{"dimensions":["utm_source","utm_medium"]}`, "business_pair_daily", []any{"utm_source", "utm_medium"}},
		{`"metadata":{"dimensions":["customer_type","utm_source"]}`, "business_pair_daily", []any{"utm_source", "customer_type"}},
		{`"metadata":{"dimensions":["device"]},"filters":[{"member":"utm_campaign","operator":"equals","values":["launch|cmp2"]}]`,
			"business_pair_daily", []any{"utm_campaign", "device"}},
		{`"metadata":{"dimensions":["utm_source","utm_content"]}`, "business_daily", nil},
		{`"metadata":{"dimensions":["utm_source","utm_medium","device"]}`, "business_daily", nil},
		{`"metadata":{"dimensions":["utm_source"],"level":"campaign"}`, "business_dim_entity_daily", nil},
		{`"metadata":{"dimensions":["landing_path"],"level":"ad"}`, "business_dim_entity_daily", nil},
		{`"metadata":{"dimensions":[],"level":"campaign"}`, "business_dim_entity_daily", nil},
		{`"metadata":{"dimensions":["utm_source"]},"source":"alpha_ads"`, "business_dim_entity_daily", nil},
		{`"metadata":{"dimensions":["utm_source"]},"connection_ids":["con_a"]`, "business_dim_entity_daily", nil},
		{`"metadata":{"dimensions":["utm_source","utm_medium"],"level":"campaign"}`, "business_daily", nil},
		{`"metadata":{"revenue":"net"}`, "business_daily", nil},
	} {
		for _, when := range []string{days, hours} {
			body := `{"project_id":"prj_r","fields":["tx_revenue","tx_count"],` + when + `,` + tc.body + `}`
			var in engine.QueryInput
			if err := json.Unmarshal([]byte(body), &in); err != nil {
				t.Fatal(err)
			}
			c, err := engine.Compile(scope, in, testNow)
			if err != nil {
				t.Fatalf("%s: %v", body, err)
			}
			want := tc.table
			if when == hours { // the pair and entity forms are daily only: the wide hourly rollup
				want = strings.NewReplacer("_pair_daily", "_hourly", "_dim_entity_daily", "_hourly", "_daily", "_hourly").Replace(want)
			}
			q := c.Attempts[0].Query
			if !strings.Contains(q.SQL, "FROM "+want+" WHERE") {
				t.Errorf("%s: reads\n%s\nwant %s", body, q.SQL, want)
			}
			if tc.pair != nil && when == days && !strings.Contains(fmt.Sprint(q.Args), strings.Trim(fmt.Sprint(tc.pair), "[]")) {
				t.Errorf("%s: pair arguments %v, want %v in order", body, q.Args, tc.pair)
			}
		}
	}
}
