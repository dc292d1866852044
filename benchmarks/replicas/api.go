package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"mtk/benchmarks/internal/benchenv"
	"mtk/benchmarks/internal/httpload"
	"mtk/client"
	"mtk/internal/loadgen"
)

// apiRow is one API cell: replicas api processes, reached through HAProxy or directly.
type apiRow struct {
	replicas int
	balanced bool
	events   httpload.Result
	// dashboard is the mix with the answer cache off (every query run in ClickHouse) and on.
	dashOff, dashOn loadgen.Summary
	// selects is the SELECT statements ClickHouse ran per dashboard request with the cache off
	// (the whole server's count, anyone else's included): the requests that single flight
	// joined to another's statement in the same replica share one.
	selects float64
}

func (r apiRow) label() string {
	if !r.balanced {
		return "1 replica, direct"
	}
	if r.replicas == 1 {
		return "1 replica via HAProxy"
	}
	return fmt.Sprintf("%d replicas via HAProxy", r.replicas)
}

// runAPI measures one replica directly, then each of f.replicas behind HAProxy, each cell with
// one worker draining what the events queue. The cells take turns for f.rounds rounds and each
// keeps its best figures: on a machine shared with other work, the round least disturbed.
func runAPI(ctx context.Context, e *env, f flags) ([]apiRow, error) {
	best := []apiRow{{replicas: 1}}
	for _, n := range f.replicas {
		best = append(best, apiRow{replicas: n, balanced: true})
	}
	for round := range f.rounds {
		for i := range best {
			r := apiRow{replicas: best[i].replicas, balanced: best[i].balanced}
			if err := apiCell(ctx, e, f, round*len(best)+i, &r); err != nil {
				return nil, err
			}
			if round == 0 || r.events.Rate() > best[i].events.Rate() {
				best[i].events = r.events
			}
			if round == 0 || r.dashOff.RPS > best[i].dashOff.RPS {
				best[i].dashOff, best[i].selects = r.dashOff, r.selects
			}
			if round == 0 || r.dashOn.RPS > best[i].dashOn.RPS {
				best[i].dashOn = r.dashOn
			}
		}
	}
	return best, nil
}

func apiCell(ctx context.Context, e *env, f flags, index int, r *apiRow) error {
	ports, err := freePorts(r.replicas + 2)
	if err != nil {
		return err
	}
	apiPorts, workerPort, lbPort := ports[:r.replicas], ports[r.replicas], ports[r.replicas+1]
	fl := &fleet{}
	defer fl.stop()
	if err := fl.mtkReady(ctx, e, f, "worker", workerPort, 1, lbPort); err != nil {
		return err
	}
	for _, p := range apiPorts {
		if err := fl.mtkReady(ctx, e, f, "api", p, 1, lbPort); err != nil {
			return err
		}
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", apiPorts[0])
	if r.balanced {
		if err := fl.haproxy(ctx, e, lbPort, apiPorts); err != nil {
			return err
		}
		base = fmt.Sprintf("http://127.0.0.1:%d", lbPort)
	}
	fmt.Printf("%s: events, %d clients for %s\n", r.label(), f.clients, f.duration)
	tracker := httpload.NewPoster(base, e.tenant.Key, f.clients)
	r.events = httpload.Load(f.clients, f.duration, func(worker, i int) (func() error, error) {
		ev := &client.Event{Config: client.EventConfig{Name: "Lead"}, EventID: fmt.Sprintf("a%d-%d-%d", index, worker, i),
			Lead: &client.Lead{Email: fmt.Sprintf("p%d-%d@bench.example", worker, i%500)},
			Page: &client.Page{URL: "https://" + benchenv.Domain + "/p?" + benchenv.UTMQuery}}
		return tracker.Request("/v3/tracking/events", ev)
	})
	if err := waitEmpty(ctx, e, "event_outbox", time.Minute); err != nil {
		return err
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConns: f.viewers, MaxIdleConnsPerHost: f.viewers,
		IdleConnTimeout: time.Minute}}
	defer hc.CloseIdleConnections()
	c := client.New(base, client.WithAPIKey(e.tenant.Key), client.WithMaxRetries(0), client.WithHTTPClient(hc))
	for _, q := range e.queries {
		if _, err := c.RawRequest(ctx, http.MethodPost, "/v3/query", q.Body); err != nil {
			return fmt.Errorf("%s: %w", q.Name, err)
		}
	}
	opt := loadgen.Options{Duration: f.duration / 2}
	for _, noCache := range []bool{true, false} {
		t := &loadgen.Target{Client: c, Queries: e.queries, NoCache: noCache}
		loadgen.Closed(ctx, t, f.viewers, loadgen.Options{Duration: time.Second}) // a warm-up, not counted
		fmt.Printf("%s: dashboard mix, %d viewers for %s, cache %s\n", r.label(), f.viewers, opt.Duration, map[bool]string{true: "off", false: "on"}[noCache])
		before, err := selects(ctx, e)
		if err != nil {
			return err
		}
		res := loadgen.Closed(ctx, t, f.viewers, opt)
		sum := loadgen.Summarize("mix", res.Samples, res.Window, func(loadgen.Sample) bool { return true })
		after, err := selects(ctx, e)
		if err != nil {
			return err
		}
		if noCache {
			r.dashOff = sum
			r.selects = float64(after-before) / float64(len(res.Samples))
		} else {
			r.dashOn = sum
		}
	}
	return ctx.Err()
}

// waitEmpty waits until the outbox table is empty.
func waitEmpty(ctx context.Context, e *env, table string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		var empty bool
		if err := e.pg.QueryRow(ctx, "SELECT NOT EXISTS (SELECT 1 FROM "+table+")").Scan(&empty); err != nil {
			return err
		}
		if empty {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not empty after %s", table, limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// selects is how many SELECT statements the ClickHouse server has run.
func selects(ctx context.Context, e *env) (uint64, error) {
	var n uint64
	err := e.ch.QueryRow(ctx, "SELECT value FROM system.events WHERE event = 'SelectQuery'").Scan(&n)
	return n, err
}
