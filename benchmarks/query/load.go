package main

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// sender performs one request of query i of the mix and reports its error.
type sender func(ctx context.Context, i int) error

// bounds stop a cell: after Duration, or after Requests requests when that is not 0, whichever
// comes first. Requests in flight at the deadline finish and count.
type bounds struct {
	Duration time.Duration
	Requests int
}

// cell is what one workload did at one concurrency on one path.
type cell struct {
	Requests int
	Errors   int
	FirstErr string
	Elapsed  time.Duration
	// CPU is this process's CPU time during the cell: clients, server and driver together.
	CPU       time.Duration
	latencies []time.Duration // sorted
}

// load sends w's queries from clients concurrent clients until b stops it. Client k starts at
// the k-th query of the workload and cycles through it, so that a mix is evenly spread.
func load(ctx context.Context, clients int, w workload, b bounds, send sender) cell {
	ctx, cancel := context.WithTimeout(ctx, b.Duration)
	defer cancel()
	var (
		issued atomic.Int64
		mu     sync.Mutex
		out    cell
		wg     sync.WaitGroup
	)
	start, cpu := time.Now(), processCPU()
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			var lat []time.Duration
			var errs int
			var firstErr string
			for n := k; ctx.Err() == nil; n++ {
				if b.Requests > 0 && issued.Add(1) > int64(b.Requests) {
					break
				}
				t := time.Now()
				// The request itself is not cut at the deadline: it runs to its end.
				err := send(context.WithoutCancel(ctx), w.Queries[n%len(w.Queries)])
				lat = append(lat, time.Since(t))
				if err != nil {
					errs++
					if firstErr == "" {
						firstErr = err.Error()
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			out.latencies = append(out.latencies, lat...)
			out.Errors += errs
			if out.FirstErr == "" {
				out.FirstErr = firstErr
			}
		}(k)
	}
	wg.Wait()
	out.Elapsed, out.CPU = time.Since(start), processCPU()-cpu
	out.Requests = len(out.latencies)
	slices.Sort(out.latencies)
	return out
}

// merge adds the requests of another round of the same cell.
func (c cell) merge(o cell) cell {
	if c.FirstErr == "" {
		c.FirstErr = o.FirstErr
	}
	c.Requests += o.Requests
	c.Errors += o.Errors
	c.Elapsed += o.Elapsed
	c.CPU += o.CPU
	c.latencies = append(c.latencies, o.latencies...)
	slices.Sort(c.latencies)
	return c
}

// percentile is the nearest-rank percentile p (0 to 100) of the cell's latencies, in ms.
func (c cell) percentile(p float64) float64 {
	if len(c.latencies) == 0 {
		return 0
	}
	rank := int(p/100*float64(len(c.latencies))+0.999999) - 1
	rank = max(0, min(rank, len(c.latencies)-1))
	return ms(c.latencies[rank])
}

// rate is the cell's throughput in requests per second.
func (c cell) rate() float64 {
	if c.Elapsed <= 0 {
		return 0
	}
	return float64(c.Requests) / c.Elapsed.Seconds()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
