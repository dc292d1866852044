package loadgen

import (
	"context"
	"sync"
	"time"
)

// Open runs the open model: requests start every 1/rate seconds whatever the answers, each
// measured from its scheduled start, so that a server that falls behind shows its queue in the
// latencies instead of slowing the sender down. At most maxInflight requests are in flight: a
// request due when all are taken waits for one (Result.Queued counts them), and those still
// unsent when the time is over are not sent, which Result.Achieved shows. It ends early, with
// what it has, when ctx is done.
func Open(ctx context.Context, t *Target, rate float64, maxInflight int, opt Options) Result {
	var rec recorder
	interval := time.Duration(float64(time.Second) / rate)
	begin := time.Now()
	counted, end := begin.Add(opt.Warmup), begin.Add(opt.Warmup+opt.Duration)
	res := Result{Window: opt.Duration, Rate: rate}
	stop := make(chan struct{})
	go rec.watch(opt, begin, stop)
	slots := make(chan struct{}, maxInflight)
	over := time.NewTimer(time.Until(end))
	defer over.Stop()
	var wg sync.WaitGroup
schedule:
	for i := 0; ; i++ {
		at := begin.Add(time.Duration(i) * interval)
		if !at.Before(end) {
			break
		}
		isCounted := !at.Before(counted)
		if isCounted {
			res.Scheduled++
		}
		if wait := time.Until(at); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
				break schedule
			}
		}
		if !time.Now().Before(end) {
			break // the sender fell behind: what is left is not sent
		}
		select {
		case slots <- struct{}{}:
		default:
			if isCounted {
				res.Queued++
			}
			select {
			case slots <- struct{}{}:
			case <-over.C:
				break schedule
			case <-ctx.Done():
				break schedule
			}
		}
		if lag := time.Since(at); isCounted {
			res.Sent++
			res.MaxLag = max(res.MaxLag, lag)
		}
		wg.Go(func() {
			s, _ := t.Send(ctx, i%len(t.Queries), at)
			<-slots
			if ctx.Err() == nil {
				rec.add(s, isCounted)
			}
		})
	}
	wg.Wait()
	close(stop)
	res.Samples = rec.samples
	return res
}
