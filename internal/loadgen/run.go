package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Options are what every run takes.
type Options struct {
	// Warmup is sent first and not counted; Duration is the counted time after it.
	Warmup, Duration time.Duration
	// Progress, when set, is called about four times a second while the run lasts.
	Progress func(Progress)
}

// Progress is how far a run is.
type Progress struct {
	Elapsed, Total   time.Duration // warm-up included
	Requests, Errors int64         // answered so far, warm-up included
}

// Result is a run's counted requests.
type Result struct {
	Samples []Sample
	// Window is the counted time.
	Window time.Duration
	// Open model only: Rate is the rate asked, Sent the requests started in the window (whose
	// samples are all there), Scheduled those the schedule called for, Queued those that waited
	// for a free slot, and MaxLag the longest wait between a request's scheduled start and its
	// sending.
	Rate                    float64
	Sent, Scheduled, Queued int
	MaxLag                  time.Duration
}

// Achieved is the rate at which the open model's requests were sent in the window.
func (r Result) Achieved() float64 { return float64(r.Sent) / r.Window.Seconds() }

// recorder keeps the counted samples of a run, from any goroutine, and its progress.
type recorder struct {
	mu               sync.Mutex
	samples          []Sample
	requests, errors atomic.Int64
}

// add records s; counted says whether it started after the warm-up.
func (r *recorder) add(s Sample, counted bool) {
	r.requests.Add(1)
	if !s.OK() {
		r.errors.Add(1)
	}
	if counted {
		r.mu.Lock()
		r.samples = append(r.samples, s)
		r.mu.Unlock()
	}
}

// watch calls opt.Progress until stop is closed.
func (r *recorder) watch(opt Options, begin time.Time, stop <-chan struct{}) {
	if opt.Progress == nil {
		return
	}
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			opt.Progress(Progress{Elapsed: time.Since(begin), Total: opt.Warmup + opt.Duration,
				Requests: r.requests.Load(), Errors: r.errors.Load()})
		}
	}
}

// Closed runs a closed loop: concurrency callers, each sending its next query as soon as its
// last is answered, until the warm-up and the duration are over. Requests started in the window
// are counted, answered after it or not. It ends early, with what it has, when ctx is done.
func Closed(ctx context.Context, t *Target, concurrency int, opt Options) Result {
	var rec recorder
	begin := time.Now()
	counted, end := begin.Add(opt.Warmup), begin.Add(opt.Warmup+opt.Duration)
	stop := make(chan struct{})
	go rec.watch(opt, begin, stop)
	var wg sync.WaitGroup
	for w := range concurrency {
		wg.Go(func() {
			// Each caller starts at its own query, so that every query is in flight from the start.
			for i := w; ctx.Err() == nil; i++ {
				start := time.Now()
				if !start.Before(end) {
					return
				}
				s, _ := t.Send(ctx, i%len(t.Queries), start)
				if ctx.Err() == nil {
					rec.add(s, !start.Before(counted))
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	return Result{Samples: rec.samples, Window: opt.Duration}
}
