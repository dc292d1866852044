package openapi

import (
	"slices"
	"testing"

	"mtk/engine"
	"mtk/internal/auth"
	"mtk/platform"
)

// TestEnumsAreTheCode checks the document's enumerations against the registries they come from,
// so that a new metric, dimension, operator, trigger type or scope is documented too.
func TestEnumsAreTheCode(t *testing.T) {
	fields, err := engine.Fields("")
	if err != nil {
		t.Fatal(err)
	}
	var metrics, dimensions []string
	for _, m := range fields.Metrics {
		metrics = append(metrics, m.Name)
	}
	for _, d := range fields.Dimensions {
		dimensions = append(dimensions, d.Name)
	}
	schemas := load(t).Components.Schemas
	for name, want := range map[string][]string{
		"MetricName":            metrics,
		"DimensionName":         dimensions,
		"BusinessDimensionName": engine.BusinessDimensions,
		"Source":                engine.Sources,
		"Level":                 engine.Levels,
		"Granularity":           engine.Granularities,
		"RangeName":             engine.Ranges,
		"CompareMode":           engine.CompareModes,
		"AttributionModel":      engine.Models,
		"AttributionDate":       engine.AttributionDates,
		"View":                  engine.Views,
		"Operator":              engine.Operators,
		"TriggerType":           platform.TriggerTypes,
		"StandardEvent":         platform.StandardEvents,
		"Scope":                 auth.AllScopes,
	} {
		ref, ok := schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			continue
		}
		var got []string
		for _, v := range ref.Value.Enum {
			s, _ := v.(string)
			got = append(got, s)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s enumerates %v; the code has %v", name, got, want)
		}
	}
}

// TestQueryCapsAreTheCode checks the query body's documented caps against the engine's.
func TestQueryCapsAreTheCode(t *testing.T) {
	q := load(t).Components.Schemas["QueryRequest"].Value.Properties
	values := q["filters"].Value.Items.Value.Properties["values"].Value
	for name, c := range map[string]struct {
		got  *uint64
		want int
	}{
		"fields.maxItems":          {q["fields"].Value.MaxItems, engine.MaxFields},
		"filters.maxItems":         {q["filters"].Value.MaxItems, engine.MaxFilters},
		"filters.values.maxItems":  {values.MaxItems, engine.MaxFilterValues},
		"filters.values.maxLength": {values.Items.Value.MaxLength, engine.MaxValueBytes},
		"connection_ids.maxItems":  {q["connection_ids"].Value.MaxItems, engine.MaxConnectionIDs},
	} {
		if c.got == nil || *c.got != uint64(c.want) {
			t.Errorf("%s is %v; the engine's cap is %d", name, c.got, c.want)
		}
	}
}
