package loadgen

import (
	"math"
	"slices"
	"strconv"
	"time"
)

// Summary is the figures of a set of samples: one query's, or the mix's. Latencies are in
// milliseconds and count the answers (2xx) only, so that quick error answers cannot make a slow
// server look fast; the errors are counted apart, by status and code.
type Summary struct {
	Name     string  `json:"name"`
	Requests int     `json:"requests"`
	Answers  int     `json:"answers"`
	RPS      float64 `json:"rps"`
	P50      float64 `json:"p50_ms"`
	P90      float64 `json:"p90_ms"`
	P99      float64 `json:"p99_ms"`
	Max      float64 `json:"max_ms"`
	// Errors counts the other requests by "<status> <code>" ("429 rate_limit_exceeded"), or
	// "0 no_answer" for those that got none.
	Errors map[string]int `json:"errors,omitempty"`
	// DB and Total are the medians of the answers' Server-Timing db and total; CacheHits the
	// share (0 to 1) of the answers that came from the answer cache.
	DB        float64 `json:"db_p50_ms"`
	Total     float64 `json:"total_p50_ms"`
	CacheHits float64 `json:"cache_hits"`
}

// Summarize sums up the samples that keep says are the set's, over window.
func Summarize(name string, samples []Sample, window time.Duration, keep func(Sample) bool) Summary {
	sum := Summary{Name: name}
	var lat, db, total []time.Duration
	hits := 0
	for _, s := range samples {
		if !keep(s) {
			continue
		}
		sum.Requests++
		if !s.OK() {
			if sum.Errors == nil {
				sum.Errors = map[string]int{}
			}
			sum.Errors[strconv.Itoa(s.Status)+" "+s.Code]++
			continue
		}
		sum.Answers++
		lat = append(lat, s.Latency)
		if s.Timing.Known {
			db, total = append(db, s.Timing.DB), append(total, s.Timing.Total)
			if s.Timing.Hit {
				hits++
			}
		}
	}
	if window > 0 {
		sum.RPS = float64(sum.Requests) / window.Seconds()
	}
	slices.Sort(lat)
	slices.Sort(db)
	slices.Sort(total)
	sum.P50, sum.P90, sum.P99 = ms(quantile(lat, 0.5)), ms(quantile(lat, 0.9)), ms(quantile(lat, 0.99))
	if len(lat) > 0 {
		sum.Max = ms(lat[len(lat)-1])
	}
	sum.DB, sum.Total = ms(quantile(db, 0.5)), ms(quantile(total, 0.5))
	if sum.Answers > 0 {
		sum.CacheHits = float64(hits) / float64(sum.Answers)
	}
	return sum
}

// quantile is the nearest-rank q-quantile of sorted durations, 0 for none.
func quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, i)]
}

// ms is d in milliseconds, to the microsecond.
func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }
