package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"mtk/benchmarks/internal/figures"
	"mtk/client"
	"mtk/facts"
	"mtk/internal/ids"
	"mtk/internal/loadgen"
)

// The shared-answers run (-shared) measures what replicas sharing answers in Redis
// (answers.Shared) save ClickHouse: in-process servers with the answer cache on (startCounted,
// each counting its own statements) are asked the dashboard mix by -viewers viewers, viewer k
// of replica k mod n, at -versions data versions in turn: before each, the project's version
// moves (as a settings change moves it) and every replica hears it, so every answer is read
// again once per version. Alone, a replica reads each answer once per version; n replicas
// without the tier read it n times, with it once.

// sharedRow is one cell: n replicas, answers shared or not.
type sharedRow struct {
	replicas int
	shared   bool
	requests int
	// failed are the requests not answered 200.
	failed int
	codes  []string // of the failed requests' answers
	// statements are ClickHouse statements per request, all replicas' together.
	statements float64
	// p50 is the median request latency; tier sums the replicas' shared-tier counts.
	p50  float64 // ms
	tier struct{ hits, waits, misses, errors int64 }
}

// runShared measures one replica, then three without and with the shared tier.
func runShared(ctx context.Context, f flags) (err error) {
	e, err := prepare(ctx, f)
	if err != nil {
		return err
	}
	defer func() { e.close(err == nil) }()
	fmt.Printf("shared answers: %d viewers, %d data versions, the mix's %d queries, %d ad-fact rows\n", f.viewers, f.versions,
		len(e.queries), f.rows)
	var rows []sharedRow
	for _, cell := range []sharedRow{{replicas: 1}, {replicas: 3}, {replicas: 3, shared: true}} {
		if err := sharedCell(ctx, e, f, &cell); err != nil {
			return err
		}
		rows = append(rows, cell)
	}
	printShared(rows)
	if err := recordShared(rows); err != nil {
		return err
	}
	for _, r := range rows {
		if r.failed > 0 {
			fmt.Printf("%d replicas, shared answers %v: failed requests' codes %v\n", r.replicas, r.shared, r.codes)
		}
	}
	return nil
}

func sharedCell(ctx context.Context, e *env, f flags, r *sharedRow) error {
	sv := serving{shared: r.shared, redisURL: f.redisURL, prefix: "mtk_bench_replicas:" + ids.Random(8) + ":"}
	servers := make([]*counted, r.replicas)
	clients := make([]*loadgen.Target, r.replicas)
	for i := range servers {
		s, err := startCounted(ctx, e, sv)
		if err != nil {
			return err
		}
		defer s.close()
		if r.shared && s.sys.Shared == nil {
			return errors.New("the replicas do not share answers")
		}
		servers[i] = s
		hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: f.viewers}}
		clients[i] = &loadgen.Target{Client: client.New(s.base, client.WithAPIKey(e.tenant.Key), client.WithMaxRetries(0),
			client.WithHTTPClient(hc)), Queries: e.queries}
	}
	statements := func() (n int64) {
		for _, s := range servers {
			n += s.ch.statements.Load()
		}
		return n
	}
	var samples []loadgen.Sample
	var mu sync.Mutex
	before, start := statements(), time.Now()
	for range f.versions {
		if err := facts.Moved(ctx, e.pg, []facts.Change{facts.SettingsOf(e.tenant.Project.ID)}); err != nil {
			return err
		}
		for _, s := range servers {
			if err := s.sys.Versions.Heard(ctx); err != nil {
				return err
			}
		}
		var wg sync.WaitGroup
		for v := range f.viewers {
			wg.Go(func() {
				t := clients[v%r.replicas]
				for k := range e.queries {
					// A failed request (a 503 when ClickHouse is too busy) is counted, not retried.
					s, _ := t.Send(ctx, (v+k)%len(e.queries), time.Now())
					mu.Lock()
					samples = append(samples, s)
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	r.requests = len(samples)
	for _, s := range samples {
		if !s.OK() {
			r.failed++
			r.codes = append(r.codes, s.Code)
		}
	}
	r.statements = float64(statements()-before) / float64(r.requests)
	r.p50 = loadgen.Summarize("mix", samples, time.Since(start), func(loadgen.Sample) bool { return true }).P50
	for _, s := range servers {
		if s.sys.Shared != nil {
			st := s.sys.Shared.Stats()
			r.tier.hits, r.tier.waits, r.tier.misses, r.tier.errors = r.tier.hits+st.Hits, r.tier.waits+st.Waits,
				r.tier.misses+st.Misses, r.tier.errors+st.Errors
		}
	}
	return nil
}

// printShared prints the cells, each cell's statements as a ratio to one replica's.
func printShared(rows []sharedRow) {
	fmt.Println()
	fmt.Println("| replicas | shared answers | requests (failed) | ClickHouse statements per request | × one replica | p50 | shared tier: hits / waits / misses / errors |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rows {
		tier := "–"
		if r.shared {
			tier = fmt.Sprintf("%d / %d / %d / %d", r.tier.hits, r.tier.waits, r.tier.misses, r.tier.errors)
		}
		fmt.Printf("| %d | %s | %d (%d) | %.3f | %.2f× | %.1f ms | %s |\n", r.replicas, map[bool]string{true: "on", false: "off"}[r.shared],
			r.requests, r.failed, r.statements, r.statements/rows[0].statements, r.p50, tier)
	}
}

// recordShared records, for the summary of make bench, the statements per request of three
// replicas as a ratio to one replica's, with shared answers off and on.
func recordShared(rows []sharedRow) error {
	got := map[string]float64{}
	for _, r := range rows {
		if r.replicas > 1 {
			got[map[bool]string{true: "replicas.shared_on_x", false: "replicas.shared_off_x"}[r.shared]] = r.statements / rows[0].statements
		}
	}
	return figures.Record(got)
}
