package engine

import (
	"fmt"
	"strings"

	"mtk/internal/apperr"
)

// FieldList is the answer of GET /v3/fields.
type FieldList struct {
	Metrics    []Metric    `json:"metrics"`
	Dimensions []Dimension `json:"dimensions"`
	// Ranges are the names time.range takes and Compare the modes of time.compare, so that
	// clients need no list of their own.
	Ranges  []string `json:"ranges"`
	Compare []string `json:"compare"`
	// Attribution is what metadata.attribution takes.
	Attribution AttributionChoices `json:"attribution"`
}

// Fields lists every metric and dimension, or those available for source when it is not empty
// (an unknown source is a 400 invalid_source).
func Fields(source string) (*FieldList, error) {
	if source != "" && !validSource(source) {
		return nil, apperr.Validation(apperr.CodeInvalidSource,
			fmt.Sprintf("Unknown source %q. Valid sources: %s.", source, strings.Join(Sources, ", ")),
			fmt.Sprintf("source: unknown source %q", source))
	}
	out := &FieldList{Metrics: []Metric{}, Dimensions: []Dimension{}, Ranges: Ranges, Compare: CompareModes,
		Attribution: attributionChoices}
	for _, m := range metricList {
		if source == "" || contains(m.Sources, source) {
			out.Metrics = append(out.Metrics, *m)
		}
	}
	for _, d := range dimensionList {
		out.Dimensions = append(out.Dimensions, *d)
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
