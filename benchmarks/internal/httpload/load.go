package httpload

import (
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Result is one load run.
type Result struct {
	ok, failed int64
	latencies  []time.Duration
	elapsed    time.Duration
}

// Rate is the calls answered 2xx per second.
func (r Result) Rate() float64 { return float64(r.ok) / r.elapsed.Seconds() }

// Failed is the calls answered otherwise or not answered.
func (r Result) Failed() int64 { return r.failed }

// Report prints what the run sent, its rate and latencies, and stored (the rows found).
func (r Result) Report(what string, stored uint64) {
	slices.Sort(r.latencies)
	pct := func(p float64) time.Duration {
		if len(r.latencies) == 0 {
			return 0
		}
		return r.latencies[int(float64(len(r.latencies)-1)*p)]
	}
	fmt.Printf("  %s: %d ok, %d failed, %.0f/s, p50 %s, p99 %s, max %s; stored %d\n", what, r.ok, r.failed,
		float64(r.ok)/r.elapsed.Seconds(), pct(0.5).Round(10*time.Microsecond), pct(0.99).Round(10*time.Microsecond),
		pct(1).Round(10*time.Microsecond), stored)
}

// Load runs clients that send requests made by next until duration has passed; the call that
// next returns is timed. An error answer counts as failed and is timed; a request that got no
// answer, or that next could not make, counts as failed only.
func Load(clients int, duration time.Duration, next func(worker, i int) (func() error, error)) Result {
	var res Result
	var mu sync.Mutex
	var ok, failed atomic.Int64
	deadline := time.Now().Add(duration)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lat []time.Duration
			for i := 0; time.Now().Before(deadline); i++ {
				call, err := next(w, i)
				if err != nil {
					failed.Add(1)
					continue
				}
				t0 := time.Now()
				err = call()
				if err != nil && !Answered(err) {
					failed.Add(1)
					continue
				}
				lat = append(lat, time.Since(t0))
				if err == nil {
					ok.Add(1)
				} else {
					failed.Add(1)
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	res.ok, res.failed = ok.Load(), failed.Load()
	return res
}

// Quantile is the q-quantile (0 to 1) of the answered calls' latencies.
func (r Result) Quantile(q float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	s := slices.Clone(r.latencies)
	slices.Sort(s)
	return s[int(float64(len(s)-1)*q)]
}

// OK is the calls answered 2xx.
func (r Result) OK() int64 { return r.ok }
