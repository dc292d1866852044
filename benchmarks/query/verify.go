package main

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"
)

// verifier checks that cached answers are fresh while the versions move: one measured cache hit
// in every `every` is read again at once with Cache-Control: no-cache (from ClickHouse, never
// from the cache). Equal ETags mean the same query at the same data version, so the bodies must
// be byte for byte equal: a difference is a stale answer. Different ETags mean a write landed
// in between: nothing to compare (skipped).
//
// A server learns that a version moved from PostgreSQL's notification, milliseconds after the
// writer's commit, and the writer commits after its ClickHouse write: in that window a fresh
// read sees the new rows under the old version (docs/querying.md, "How fast a server learns of a write").
// So when the bodies differ, the checker waits until every write in flight at that moment has
// committed its version move (settled), then until the server has heard every move committed so
// far (facts.Versions.Heard), and reads once more: a new ETag means the version had moved and the
// cached answer was the previous version's, served within that window (counted apart, as
// unheard); the same ETag still is a stale answer: what changed moved no version. (A write that
// moved no version would be hidden only if another write moved the same answer's version within
// that wait, a second or so.)
//
// One check runs at a time, beside the viewers: a sample that comes while the checker is busy
// is dropped rather than queued, since a queued check would compare later and so skip more, and
// checks (each a ClickHouse read) must not become the run's load.
type verifier struct {
	every   int64
	client  *queryClient // its own connection, so checks never wait behind the viewers'
	heard   func(context.Context) error
	settled func(context.Context) error
	samples chan hitSample
	done    chan struct{}

	offered, dropped                  atomic.Int64
	compared, stale, skipped, unheard atomic.Int64
	noTag, errs                       atomic.Int64

	mu        sync.Mutex
	firstDiff string
}

// hitSample is a cache hit to check: the request, its ETag and body.
type hitSample struct {
	r    request
	etag string
	body []byte
}

// freshness is what the verifier found.
type freshness struct {
	Every    int64 `json:"one_hit_in"`
	Sampled  int64 `json:"sampled"`
	Dropped  int64 `json:"dropped_checker_busy"`
	Compared int64 `json:"compared"`
	Stale    int64 `json:"stale"`
	Skipped  int64 `json:"skipped_version_moved"`
	// Unheard are answers whose bytes differed under the same ETag because the version had
	// moved and the server had not heard it yet (see verifier).
	Unheard int64  `json:"unheard_move"`
	NoETag  int64  `json:"no_etag"`
	Errors  int64  `json:"errors"`
	First   string `json:"first_stale,omitempty"`
}

func newVerifier(every int, c *queryClient, settled, heard func(context.Context) error) *verifier {
	v := &verifier{every: int64(every), client: c, settled: settled, heard: heard, samples: make(chan hitSample), done: make(chan struct{})}
	go v.run()
	return v
}

// offer samples one hit in every, handing it to the checker when it is idle.
func (v *verifier) offer(r request, resp *fasthttp.Response) {
	if v.offered.Add(1)%v.every != 0 {
		return
	}
	s := hitSample{r: r, etag: string(resp.Header.Peek(fasthttp.HeaderETag)), body: bytes.Clone(resp.Body())}
	select {
	case v.samples <- s:
	default:
		v.dropped.Add(1)
	}
}

func (v *verifier) run() {
	defer close(v.done)
	for s := range v.samples {
		v.check(s)
	}
}

func (v *verifier) check(s hitSample) {
	if s.etag == "" {
		v.noTag.Add(1)
		return
	}
	resp := fasthttp.AcquireResponse()
	defer fasthttp.ReleaseResponse(resp)
	if err := v.client.post(s.r, resp, true); err != nil {
		v.errs.Add(1)
		return
	}
	switch {
	case string(resp.Header.Peek(fasthttp.HeaderETag)) != s.etag:
		v.skipped.Add(1)
		return
	case bytes.Equal(resp.Body(), s.body):
		v.compared.Add(1)
		return
	}
	first := bytes.Clone(resp.Body())
	if err := v.settled(context.Background()); err != nil {
		v.errs.Add(1)
		return
	}
	if err := v.heard(context.Background()); err != nil {
		v.errs.Add(1)
		return
	}
	resp.Reset()
	if err := v.client.post(s.r, resp, true); err != nil {
		v.errs.Add(1)
		return
	}
	if string(resp.Header.Peek(fasthttp.HeaderETag)) != s.etag {
		v.unheard.Add(1)
		return
	}
	v.compared.Add(1)
	v.stale.Add(1)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.firstDiff == "" {
		v.firstDiff = fmt.Sprintf("project %d, %d days, %s, ETag %s: %s", s.r.project, rangeDays[s.r.rng], tiles[s.r.tile].Name,
			s.etag, firstDifference(s.body, first))
	}
}

// firstDifference shows where two bodies first differ, with some bytes of each around it.
func firstDifference(cached, fresh []byte) string {
	i := 0
	for i < len(cached) && i < len(fresh) && cached[i] == fresh[i] {
		i++
	}
	from := max(0, i-80)
	return fmt.Sprintf("at byte %d, cached …%s…, fresh …%s…", i, cached[from:min(len(cached), i+80)], fresh[from:min(len(fresh), i+80)])
}

// stop waits for the check in progress and reports.
func (v *verifier) stop() freshness {
	close(v.samples)
	<-v.done
	f := freshness{Every: v.every, Sampled: v.offered.Load() / v.every, Dropped: v.dropped.Load(),
		Compared: v.compared.Load(), Stale: v.stale.Load(), Skipped: v.skipped.Load(), Unheard: v.unheard.Load(),
		NoETag: v.noTag.Load(), Errors: v.errs.Load(), First: v.firstDiff}
	return f
}
