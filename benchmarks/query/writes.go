package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"mtk/client"
	"mtk/internal/clock"
)

// liveWriter posts what keeps arriving while dashboards are viewed, at a steady rate, to the
// server's public ingestion routes: tracking events (a page view, or a lead one time in five)
// with the UTM of one of the project's ads, and order webhooks (approved, attributed the same
// way; one in ten created one to three days back, as late webhooks are). Projects are chosen by
// the viewers' Zipf law: busy stores are the most viewed. The server's outbox workers land
// their facts in ClickHouse every second, moving the data versions of the days they fall on.
type liveWriter struct {
	hc       *fasthttp.HostClient
	base     string
	t        *dashTenants
	clock    clock.Clock
	zipf     float64
	events   float64 // per second, over all projects
	orders   float64
	seed     int64
	tag      string // makes event and transaction ids unique to this process
	inflight sync.WaitGroup

	eventsOK, eventsFailed, ordersOK, ordersFailed, lateOrders atomic.Int64
	mu                                                         sync.Mutex
	firstErr                                                   string
}

// writeStats are what a run's writer posted.
type writeStats struct {
	Events       int64  `json:"events_ok"`
	EventsFailed int64  `json:"events_failed"`
	Orders       int64  `json:"orders_ok"`
	OrdersFailed int64  `json:"orders_failed"`
	LateOrders   int64  `json:"late_orders_ok"`
	FirstErr     string `json:"first_error,omitempty"`
}

func newLiveWriter(base string, t *dashTenants, clk clock.Clock, f dashFlags, seed int64) *liveWriter {
	return &liveWriter{hc: &fasthttp.HostClient{Addr: strings.TrimPrefix(base, "http://"), MaxConns: 32}, base: base,
		t: t, clock: clk, zipf: f.zipf, events: f.events, orders: f.orders, seed: seed,
		tag: fmt.Sprintf("%x", time.Now().UnixNano())}
}

// run posts until ctx ends, then waits for the posts in flight. The schedule is fixed (one post
// every 1/rate s, from a seeded source): every run gets the same writes.
func (w *liveWriter) run(ctx context.Context) writeStats {
	var wg sync.WaitGroup
	if w.events > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); w.pace(ctx, w.events, w.seed, w.event) }()
	}
	if w.orders > 0 {
		wg.Add(1)
		go func() { defer wg.Done(); w.pace(ctx, w.orders, w.seed+1, w.order) }()
	}
	wg.Wait()
	w.inflight.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return writeStats{Events: w.eventsOK.Load(), EventsFailed: w.eventsFailed.Load(), Orders: w.ordersOK.Load(),
		OrdersFailed: w.ordersFailed.Load(), LateOrders: w.lateOrders.Load(), FirstErr: w.firstErr}
}

// pace calls post rate times a second, each post on its own goroutine so that a slow answer
// does not slow the schedule.
func (w *liveWriter) pace(ctx context.Context, rate float64, seed int64, post func(r *rand.Rand, n int, p *dashProject)) {
	r := rand.New(rand.NewSource(seed))
	z := rand.NewZipf(r, w.zipf, 1, uint64(len(w.t.projects)-1))
	tick := time.NewTicker(time.Duration(float64(time.Second) / rate))
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		p := w.t.projects[z.Uint64()]
		w.inflight.Add(1)
		// The body is made here, in schedule order, from the seeded source.
		post(r, n, p)
	}
}

// event posts one tracking event of p with the workspace's key.
func (w *liveWriter) event(r *rand.Rand, n int, p *dashProject) {
	ad := p.ads[r.Intn(len(p.ads))]
	ev := client.Event{Domain: p.domain, Config: client.EventConfig{Name: "PageView"},
		EventID: fmt.Sprintf("dash-%s-%d", w.tag, n),
		Page:    &client.Page{URL: fmt.Sprintf("https://%s/p/%d", p.domain, r.Intn(100))},
		UTM:     &client.UTM{Source: "ads", Campaign: ad.campaign, Medium: ad.adset, Content: ad.ad}}
	if r.Intn(5) == 0 {
		ev.Config.Name = "Lead"
		ev.Lead = &client.Lead{Email: fmt.Sprintf("v%d-%s@dash.bench.example", r.Intn(1_000_000), w.tag)}
	}
	go w.post("/v3/tracking/events", "Bearer "+p.key, ev, &w.eventsOK, &w.eventsFailed, nil)
}

// order posts one approved order of p to its checkout connection's webhook.
func (w *liveWriter) order(r *rand.Rand, n int, p *dashProject) {
	ad := p.ads[r.Intn(len(p.ads))]
	at := w.clock.Now().Truncate(time.Second)
	var late *atomic.Int64
	if r.Intn(10) == 0 {
		at = at.Add(-time.Duration(24+r.Intn(48)) * time.Hour)
		late = &w.lateOrders
	}
	tx := client.Transaction{ID: fmt.Sprintf("dash-%s-%d", w.tag, n), Status: "approved",
		Value: int64(5_000 + r.Intn(45_000)), CreatedAt: at,
		Customer: &client.Customer{Email: fmt.Sprintf("c%d-%s@dash.bench.example", r.Intn(1_000_000), w.tag)},
		UTM:      &client.UTM{Source: "ads", Campaign: ad.campaign, Medium: ad.adset, Content: ad.ad}}
	go w.post("/v2/tracking/generic?k="+url.QueryEscape(p.checkout.WebhookKey), "", map[string]any{"transaction": tx},
		&w.ordersOK, &w.ordersFailed, late)
}

func (w *liveWriter) post(path, auth string, v any, ok, failed, alsoOK *atomic.Int64) {
	defer w.inflight.Done()
	err := w.send(path, auth, v)
	if err == nil {
		ok.Add(1)
		if alsoOK != nil {
			alsoOK.Add(1)
		}
		return
	}
	failed.Add(1)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.firstErr == "" {
		w.firstErr = err.Error()
	}
}

func (w *liveWriter) send(path, auth string, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(w.base + path)
	req.Header.SetMethod(fasthttp.MethodPost)
	req.Header.SetContentType("application/json")
	if auth != "" {
		req.Header.Set(fasthttp.HeaderAuthorization, auth)
	}
	req.SetBodyRaw(body)
	if err := w.hc.DoTimeout(req, resp, 30*time.Second); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if code := resp.StatusCode(); code < 200 || code > 299 {
		return fmt.Errorf("%s: HTTP %d: %.300s", path, code, resp.Body())
	}
	return nil
}
