package main

import (
	"context"
	"math/rand"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// The viewers: a closed loop of V viewers, each loading one page at a time. A viewer chooses a
// project by a Zipf law (project 0 the most viewed) and a range among rangeDays, loads the page
// (its tiles, at most `parallel` in flight, as a browser's connections to one host), pauses for
// the think time, then either refreshes the same page (one time in two) or chooses again. Each
// viewer draws from its own seeded source, so every run replays the same choices in the same
// order (a faster run gets further along them).

// request is one tile of one page.
type request struct {
	project, rng, tile int
}

// outcome is what one request got: a cache hit (Server-Timing), or an error.
type outcome struct {
	hit bool
	err error
}

// doer performs one request; measured says whether it counts (after the warm-up).
type doer func(ctx context.Context, r request, measured bool) outcome

// viewerModel is how the viewers behave.
type viewerModel struct {
	viewers, parallel int
	projects          int
	zipf              float64
	think             time.Duration
	seed              int64
}

// sample is one measured request.
type sample struct {
	tile    int
	latency time.Duration
	hit     bool
}

// viewerLoad is what the viewers did after the warm-up.
type viewerLoad struct {
	Requests, Errors, Hits int
	FirstErr               string
	Elapsed                time.Duration
	CPU                    time.Duration
	samples                []sample
	latencies, pages       []time.Duration // sorted
}

// runViewers loads pages for warmup, then for measure; only requests and pages begun after the
// warm-up count. Pages in flight at the end finish and count. With several doers each page is
// loaded once by each, in turn (the first one starting each page rotates), and each gets its
// own load: its share of the time is the time its pages took.
func runViewers(ctx context.Context, m viewerModel, warmup, measure time.Duration, dos ...doer) []viewerLoad {
	start := time.Now()
	from, end := start.Add(warmup), start.Add(warmup+measure)
	var (
		mu   sync.Mutex
		out  = make([]viewerLoad, len(dos))
		busy = make([]time.Duration, len(dos)) // the time each doer's measured pages took
		wg   sync.WaitGroup
		last atomic.Int64 // the latest completion, Unix nanoseconds
		cpu  time.Duration
	)
	cpuTaken := make(chan struct{})
	go func() {
		defer close(cpuTaken)
		select {
		case <-time.After(time.Until(from)):
			cpu = processCPU()
		case <-ctx.Done():
		}
	}()
	for v := range m.viewers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(m.seed*1_000_003 + int64(v)))
			z := rand.NewZipf(r, m.zipf, 1, uint64(m.projects-1))
			mine := make([]viewerLoad, len(dos))
			busyMine := make([]time.Duration, len(dos))
			project, rng := 0, 0
			for n := 0; ctx.Err() == nil && time.Now().Before(end); n++ {
				if n == 0 || r.Intn(2) == 0 { // else: a refresh of the same page
					project, rng = int(z.Uint64()), r.Intn(len(rangeDays))
				}
				for k := range dos {
					i := (n + k) % len(dos)
					t0 := time.Now()
					counted := !t0.Before(from)
					got := loadPage(ctx, m.parallel, project, rng, counted, dos[i])
					took := time.Since(t0)
					last.Store(time.Now().UnixNano())
					if !counted {
						continue
					}
					l := &mine[i]
					busyMine[i] += took
					l.pages = append(l.pages, took)
					for _, g := range got {
						if g.err != nil {
							l.Errors++
							if l.FirstErr == "" {
								l.FirstErr = g.err.Error()
							}
						}
						l.samples = append(l.samples, g.sample)
					}
				}
				if m.think > 0 {
					time.Sleep(m.think)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			for i, l := range mine {
				o := &out[i]
				o.samples = append(o.samples, l.samples...)
				o.pages = append(o.pages, l.pages...)
				o.Errors += l.Errors
				if o.FirstErr == "" {
					o.FirstErr = l.FirstErr
				}
				busy[i] += busyMine[i]
			}
		}()
	}
	wg.Wait()
	<-cpuTaken
	cpu, wall := processCPU()-cpu, time.Unix(0, last.Load()).Sub(from)
	var total time.Duration
	for _, b := range busy {
		total += b
	}
	for i := range out {
		o := &out[i]
		share := 1.0
		if total > 0 {
			share = float64(busy[i]) / float64(total)
		}
		o.Elapsed = time.Duration(float64(wall) * share)
		o.CPU = time.Duration(float64(cpu) * share)
		o.Requests = len(o.samples)
		for _, s := range o.samples {
			o.latencies = append(o.latencies, s.latency)
			if s.hit {
				o.Hits++
			}
		}
		slices.Sort(o.latencies)
		slices.Sort(o.pages)
	}
	return out
}

// tileResult is one request of a page.
type tileResult struct {
	sample
	err error
}

// loadPage asks every tile of a page, at most parallel at once, and returns them in tile order.
func loadPage(ctx context.Context, parallel, project, rng int, measured bool, do doer) []tileResult {
	out := make([]tileResult, len(tiles))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(parallel, len(tiles)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(tiles) {
					return
				}
				t0 := time.Now()
				o := do(ctx, request{project: project, rng: rng, tile: i}, measured)
				out[i] = tileResult{sample: sample{tile: i, latency: time.Since(t0), hit: o.hit}, err: o.err}
			}
		}()
	}
	wg.Wait()
	return out
}

// rate is the measured requests per second.
func (l viewerLoad) rate() float64 {
	if l.Elapsed <= 0 {
		return 0
	}
	return float64(l.Requests) / l.Elapsed.Seconds()
}

// pct is the nearest-rank percentile p (0 to 100) of sorted durations, in ms.
func pct(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(sorted))+0.999999) - 1
	return ms(sorted[max(0, min(rank, len(sorted)-1))])
}
