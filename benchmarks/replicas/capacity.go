package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"mtk/benchmarks/internal/benchenv"
	"mtk/benchmarks/internal/httpload"
	"mtk/benchmarks/internal/procstat"
	"mtk/client"
	"mtk/internal/loadgen"
)

// The capacity run (-capacity) serves mtk in this process (startCounted) so that what it sends
// the stores is counted exactly, and reads what the stores spent around each phase:
//   - PostgreSQL: the round trips and statements the server sent (pgCounter), and
//     the CPU of the backends serving this run's database (/proc/<pid>/stat of the pids that
//     pg_stat_activity lists for it; the WAL writer and checkpointer, shared with every
//     database, are left out);
//   - ClickHouse: the statements sent (chCounter) and the CPU of the server process (found by its
//     port; system.query_log is off on 18.16 and the engine's statements carry settings of their
//     own, so it is the whole server's: what it spent for others in the seconds before and after
//     the phase, at that rate, is subtracted, which leaves noise when others' load changes);
//   - Redis: the commands (INFO commandstats) and CPU (INFO cpu) of the server, rate limits on
//     (others' CPU subtracted the same way).
// Events and orders are measured until the outboxes they fill are drained, so the drainers'
// share is in their figures. Dashboard queries in flight together share one statement (single
// flight), so ClickHouse's CPU is given per statement as well as per query.

// sample is what the stores had spent at one moment.
type sample struct {
	trips, statements, chStatements int64
	pgCPU                           map[int]time.Duration // backend pid → CPU
	chCPU                           time.Duration
	redisCalls                      int64
	redisCPU                        time.Duration
}

// cost is what the stores spent between two samples, per unit of work.
type cost struct {
	units                    float64
	trips, statements        float64
	pgCPU, chCPU, redisCPU   time.Duration
	chStatements, redisCalls float64
}

type probe struct {
	e     *env
	srv   *counted
	chPID int
	rdb   *redis.Client
}

func (p *probe) take(ctx context.Context) (sample, error) {
	s := sample{pgCPU: map[int]time.Duration{}}
	if p.srv != nil {
		s.trips, s.statements = p.srv.trips.trips.Load(), p.srv.trips.statements.Load()
		s.chStatements = p.srv.ch.statements.Load()
	}
	rows, err := p.e.pg.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE datname = $1", dbName)
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var pid int
		if err := rows.Scan(&pid); err != nil {
			return s, err
		}
		s.pgCPU[pid] = procstat.CPU(pid)
	}
	if err := rows.Err(); err != nil {
		return s, err
	}
	s.chCPU = procstat.CPU(p.chPID)
	if p.rdb != nil {
		if s.redisCalls, s.redisCPU, err = redisSpent(ctx, p.rdb); err != nil {
			return s, err
		}
	}
	return s, nil
}

// since is what was spent from a to b, per unit of units.
func since(a, b sample, units float64) cost {
	var pg time.Duration
	for pid, cpu := range b.pgCPU {
		pg += cpu - a.pgCPU[pid]
	}
	per := func(d time.Duration) time.Duration { return time.Duration(float64(d) / units) }
	return cost{units: units,
		trips: float64(b.trips-a.trips) / units, statements: float64(b.statements-a.statements) / units,
		pgCPU:        per(pg),
		chStatements: float64(b.chStatements-a.chStatements) / units, chCPU: per(b.chCPU - a.chCPU),
		redisCalls: float64(b.redisCalls-a.redisCalls) / units, redisCPU: per(b.redisCPU - a.redisCPU)}
}

// redisSpent is the commands Redis has run and the CPU it has used.
func redisSpent(ctx context.Context, rdb *redis.Client) (int64, time.Duration, error) {
	info, err := rdb.Info(ctx, "commandstats", "cpu").Result()
	if err != nil {
		return 0, 0, err
	}
	var calls int64
	var cpu float64
	for _, line := range strings.Split(info, "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, ":"); ok {
			switch {
			case strings.HasPrefix(k, "cmdstat_") && !strings.HasPrefix(k, "cmdstat_info"):
				// calls=N,usec=…
				if c, _, ok := strings.Cut(strings.TrimPrefix(v, "calls="), ","); ok {
					n, _ := strconv.ParseInt(c, 10, 64)
					calls += n
				}
			case k == "used_cpu_sys" || k == "used_cpu_user":
				f, _ := strconv.ParseFloat(v, 64)
				cpu += f
			}
		}
	}
	return calls, time.Duration(cpu * float64(time.Second)), nil
}

// runCapacity measures events, orders, dashboard queries (cache off) and rate-limited requests,
// then prints what each costs the stores and the capacity table.
func runCapacity(ctx context.Context, f flags) (err error) {
	e, err := prepare(ctx, f)
	if err != nil {
		return err
	}
	defer func() { e.close(err == nil) }()
	chURL, err := url.Parse(e.chURL)
	if err != nil {
		return err
	}
	chPort, _ := strconv.Atoi(chURL.Port())
	p := &probe{e: e}
	if p.chPID, err = listener(chPort); err != nil {
		return fmt.Errorf("ClickHouse's process: %w", err)
	}
	if p.srv, err = startCounted(ctx, e, serving{workers: true}); err != nil {
		return err
	}
	defer func() { p.srv.close() }()
	fmt.Printf("capacity: %d event clients, %d viewers, %s a phase, %d ad-fact rows\n", f.clients, f.viewers, f.duration, f.rows)

	tracker := httpload.NewPoster(p.srv.base, e.tenant.Key, f.clients)
	events, err := p.measure(ctx, "events", func() (float64, error) {
		r := httpload.Load(f.clients, f.duration, func(worker, i int) (func() error, error) {
			ev := &client.Event{Config: client.EventConfig{Name: "Lead"}, EventID: fmt.Sprintf("c-%d-%d", worker, i),
				Lead: &client.Lead{Email: fmt.Sprintf("p%d-%d@bench.example", worker, i%500)},
				Page: &client.Page{URL: "https://" + benchenv.Domain + "/p?" + benchenv.UTMQuery}}
			return tracker.Request("/v3/tracking/events", ev)
		})
		return float64(r.OK()), p.drained(ctx)
	})
	if err != nil {
		return err
	}
	webhooks := httpload.NewPoster(p.srv.base, "", f.clients)
	hook := "/v2/tracking/generic?k=" + url.QueryEscape(e.tenant.Webhook)
	orders, err := p.measure(ctx, "orders", func() (float64, error) {
		r := httpload.Load(f.clients, f.duration/2, func(worker, i int) (func() error, error) {
			now := time.Now().UTC().Truncate(time.Second)
			tx := &client.Transaction{ID: fmt.Sprintf("o-%d-%d", worker, i/2), Status: []string{"pending", "approved"}[i%2],
				Value: int64(1000 + i), CreatedAt: now, UpdatedAt: now.Add(time.Duration(i) * time.Second),
				Customer: &client.Customer{Email: fmt.Sprintf("p%d-%d@bench.example", worker, i%500)},
				UTM:      &client.UTM{Campaign: "Bench|900", Content: "Ad|902"}}
			return webhooks.Request(hook, map[string]any{"transaction": tx})
		})
		return float64(r.OK()), p.drained(ctx)
	})
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: f.viewers}}
	qc := client.New(p.srv.base, client.WithAPIKey(e.tenant.Key), client.WithMaxRetries(0), client.WithHTTPClient(hc))
	dash, err := p.measure(ctx, "dashboard queries (cache off)", func() (float64, error) {
		res := loadgen.Closed(ctx, &loadgen.Target{Client: qc, Queries: e.queries, NoCache: true}, f.viewers, loadgen.Options{Duration: f.duration / 2})
		s := loadgen.Summarize("mix", res.Samples, res.Window, func(loadgen.Sample) bool { return true })
		if s.Answers < s.Requests {
			return 0, fmt.Errorf("dashboard: %d of %d requests failed: %v", s.Requests-s.Answers, s.Requests, s.Errors)
		}
		return float64(s.Answers), nil
	})
	if err != nil {
		return err
	}
	hc.CloseIdleConnections()
	p.srv.close()

	// Rate limits on, through Redis: the same answer from the answer cache, so that what the
	// request costs besides the limit is small; past the tier's limit the answers are 429, which
	// cost Redis the same.
	ro, err := redis.ParseURL(f.redisURL)
	if err != nil {
		return fmt.Errorf("-redis: %w", err)
	}
	if p.rdb = redis.NewClient(ro); p.rdb.Ping(ctx).Err() != nil {
		return fmt.Errorf("redis at %s does not answer (make services)", f.redisURL)
	}
	defer p.rdb.Close()
	if p.srv, err = startCounted(ctx, e, serving{limits: true, redisURL: f.redisURL}); err != nil {
		return err
	}
	lc := client.New(p.srv.base, client.WithAPIKey(e.tenant.Key), client.WithMaxRetries(0))
	limited, err := p.measure(ctx, "requests with rate limits in Redis", func() (float64, error) {
		res := loadgen.Closed(ctx, &loadgen.Target{Client: lc, Queries: e.queries[:1]}, 4, loadgen.Options{Duration: f.duration / 2})
		return float64(len(res.Samples)), nil
	})
	if err != nil {
		return err
	}
	printCapacity(events, orders, dash, limited)
	return nil
}

// measure runs work, which returns how many units it did, between two samples.
func (p *probe) measure(ctx context.Context, what string, work func() (float64, error)) (cost, error) {
	before, err := p.others(ctx)
	if err != nil {
		return cost{}, err
	}
	a, err := p.take(ctx)
	if err != nil {
		return cost{}, err
	}
	start := time.Now()
	units, err := work()
	if err != nil {
		return cost{}, fmt.Errorf("%s: %w", what, err)
	}
	if units == 0 {
		return cost{}, fmt.Errorf("%s: none done", what)
	}
	b, err := p.take(ctx)
	if err != nil {
		return cost{}, err
	}
	elapsed := time.Since(start)
	after, err := p.others(ctx)
	if err != nil {
		return cost{}, err
	}
	c := since(a, b, units)
	// What ClickHouse and Redis spent for others while nothing of this run was sent, at the mean
	// rate of before and after the phase, is taken out of the phase's.
	others := func(d1, d2 time.Duration) time.Duration {
		return time.Duration(float64(d1+d2) / 2 / baselineWindow.Seconds() * elapsed.Seconds() / units)
	}
	c.chCPU = max(0, c.chCPU-others(before.chCPU, after.chCPU))
	c.redisCPU = max(0, c.redisCPU-others(before.redisCPU, after.redisCPU))
	fmt.Printf("%s: %.0f in %s; ClickHouse busy for others %.0f%% of a core before, %.0f%% after (subtracted)\n", what, units,
		elapsed.Round(10*time.Millisecond), 100*before.chCPU.Seconds()/baselineWindow.Seconds(), 100*after.chCPU.Seconds()/baselineWindow.Seconds())
	return c, nil
}

// baselineWindow is how long, before and after each phase, what ClickHouse and Redis spend for
// anyone else is read.
const baselineWindow = 2 * time.Second

// spent is the CPU that ClickHouse and Redis spent in baselineWindow while this run sent nothing
// (the drainers, idle, hardly count).
type spent struct{ chCPU, redisCPU time.Duration }

func (p *probe) others(ctx context.Context) (spent, error) {
	a, err := p.take(ctx)
	if err != nil {
		return spent{}, err
	}
	time.Sleep(baselineWindow)
	b, err := p.take(ctx)
	return spent{chCPU: b.chCPU - a.chCPU, redisCPU: b.redisCPU - a.redisCPU}, err
}

// drained waits until the outboxes that events and orders fill are empty.
func (p *probe) drained(ctx context.Context) error {
	for _, table := range []string{"event_outbox", "fact_outbox", "journey_outbox"} {
		if err := waitEmpty(ctx, p.e, table, 2*time.Minute); err != nil {
			return err
		}
	}
	return nil
}
