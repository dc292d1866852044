// Package metricstest reads a Prometheus text exposition (what GET /metrics answers) in tests.
package metricstest

import (
	"io"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one exposition, by name.
type Families map[string]*dto.MetricFamily

// Parse reads a text exposition; a malformed one fails the test.
func Parse(t testing.TB, r io.Reader) Families {
	t.Helper()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		t.Fatalf("metrics exposition: %v", err)
	}
	return fams
}

// Value is the value of family name's sample whose labels include the name, value pairs given:
// a counter's or a gauge's value, a histogram's count of observations. ok is false when no
// sample matches.
func (f Families) Value(name string, labels ...string) (v float64, ok bool) {
	fam := f[name]
	if fam == nil {
		return 0, false
	}
	for _, m := range fam.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
		return m.GetUntyped().GetValue(), true
	}
	return 0, false
}

// LabelValues lists the values that label takes in family name's samples.
func (f Families) LabelValues(name, label string) []string {
	var out []string
	for _, m := range f[name].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}

func hasLabels(m *dto.Metric, pairs []string) bool {
	for i := 0; i+1 < len(pairs); i += 2 {
		found := false
		for _, l := range m.GetLabel() {
			if l.GetName() == pairs[i] && l.GetValue() == pairs[i+1] {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
