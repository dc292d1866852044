package schema_test

import (
	"fmt"
	"strings"
	"testing"

	"mtk/facts"
	"mtk/schema"
)

// The views of the business family's pair and per-dimension rollups spread each raw row over
// exactly the registry's pairs (facts.BizPairs) and dimensions (facts.BizDimensions), in their
// order: the engine reads a pair's rows as value_a and value_b by that order.
func TestRollupViewsSpreadTheRegistry(t *testing.T) {
	migs, err := schema.Load("clickhouse")
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, m := range migs {
		all.WriteString(m.SQL)
	}
	sql := all.String()
	var pairs, dims []string
	for _, p := range facts.BizPairs {
		pairs = append(pairs, fmt.Sprintf("('%s', %s, '%s', %s)", p[0], p[0], p[1], p[1]))
	}
	for _, d := range facts.BizDimensions {
		dims = append(dims, fmt.Sprintf("('%s', %s)", d.Column, d.Column))
	}
	for list, views := range map[string]int{
		"ARRAY JOIN [" + strings.Join(pairs, ", ") + "] AS pv": 1, // business_pair_daily_mv
		"ARRAY JOIN [" + strings.Join(dims, ", ") + "] AS dv":  3, // business_dim_*_mv, business_dim_entity_daily_mv
	} {
		if n := strings.Count(sql, list); n != views {
			t.Errorf("%d views spread %s, want %d", n, list, views)
		}
	}
}
