package loadgen

import (
	"testing"
	"time"
)

func TestParseServerTiming(t *testing.T) {
	for _, c := range []struct {
		header string
		want   Timing
	}{
		{"db;dur=12.50, total;dur=14.25, cache;desc=miss", Timing{Known: true, DB: 12500 * time.Microsecond, Total: 14250 * time.Microsecond}},
		{"db;dur=0.00, total;dur=0.31, cache;desc=hit", Timing{Known: true, Total: 310 * time.Microsecond, Hit: true}},
		{"cdn;dur=3, cache;desc=hit", Timing{Known: true, Hit: true}},
		{"", Timing{}},
		{"db;dur=x", Timing{}},
	} {
		if got := ParseServerTiming(c.header); got != c.want {
			t.Errorf("%q: %+v, want %+v", c.header, got, c.want)
		}
	}
}

// TestSummarizeCountsAndQuantiles: nearest-rank quantiles over the answers only, errors by
// status and code.
func TestSummarizeCountsAndQuantiles(t *testing.T) {
	var samples []Sample
	for i := 1; i <= 100; i++ {
		samples = append(samples, Sample{Latency: time.Duration(i) * time.Millisecond, Status: 200,
			Timing: Timing{Known: true, Hit: i%4 == 0}})
	}
	samples = append(samples, Sample{Latency: time.Hour, Status: 429, Code: "rate_limit_exceeded"}, Sample{Status: 0, Code: noAnswer})
	s := Summarize("mix", samples, 2*time.Second, func(Sample) bool { return true })
	if s.Requests != 102 || s.Answers != 100 || s.Errors["429 rate_limit_exceeded"] != 1 || s.Errors["0 no_answer"] != 1 ||
		s.RPS != 51 || s.P50 != 50 || s.P90 != 90 || s.P99 != 99 || s.Max != 100 || s.CacheHits != 0.25 {
		t.Errorf("%+v", s)
	}
}
