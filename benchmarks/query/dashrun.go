package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"mtk/internal/config"
)

// measure makes one run, or runs paired on one server: a fresh server of the runs'
// configuration (runs[0]'s) with its outbox workers; with the cache on, every tile asked once
// (prefill); the live writes and the minute's sync against it; the viewers for the warm-up and
// the measured time; with the cache on, the freshness checks. Paired runs (the uncached path and
// the floor at one client) load each page once on each path in turn, so that what else the
// shared machine does weighs on both alike.
//
// The prefill stands for a server that has been serving these dashboards for a while: its cache
// holds an answer of every page, and what it misses is what the writes moved. Without it the
// short run would measure mostly the cache filling up (the Zipf law's tail is seldom viewed).
func (d *dashboard) measure(ctx context.Context, runs ...dashRun) ([]runReport, error) {
	f, cfg := d.f.dash, runs[0]
	for _, run := range runs {
		if run.floor {
			if err := d.compileFloor(ctx); err != nil {
				return nil, err
			}
		}
	}
	srv, err := startServer(d.pg, d.serverCH, d.chURL, d.pgURL, serverOptions{cache: cfg.cache, grain: cfg.grain, clock: d.clk, workers: true})
	if err != nil {
		return nil, err
	}
	defer srv.close() //nolint:errcheck
	if v := srv.sys.Versions; v != nil {
		// Answers are cached only once the server listens for version moves.
		if err := v.Heard(ctx); err != nil {
			return nil, err
		}
		if err := d.prefill(ctx, srv.url); err != nil {
			return nil, err
		}
	}
	runCtx, stopWrites := context.WithCancel(ctx)
	defer stopWrites()
	writes := make(chan writeStats, 1)
	go func() { writes <- newLiveWriter(srv.url, d.t, d.clk, f, d.f.seed).run(runCtx) }()
	syncs := make(chan []syncRecord, 1)
	go func() {
		syncs <- syncEvery(runCtx, srv.sys.Syncer, d.store.Connections, d.syncedID, f.warmup+f.run/2, f.syncEvery)
	}()

	var dos []doer
	var verify *verifier
	for _, run := range runs {
		if run.floor {
			dos = append(dos, d.floorDo)
			continue
		}
		qc := newQueryClient(srv.url, d.t, d.pages, cfg.viewers*cfg.parallel)
		if run.cache == config.On && f.verifyEvery > 0 {
			verify = newVerifier(f.verifyEvery, newQueryClient(srv.url, d.t, d.pages, 1), d.writesSettled, srv.sys.Versions.Heard)
			qc.verify = verify
		}
		dos = append(dos, qc.do)
	}
	// The versions that moved while the runs were measured: data_version_seq's values then.
	first := make(chan int64, 1)
	go func() {
		select {
		case <-time.After(f.warmup):
		case <-ctx.Done():
		}
		first <- d.versionSeq(ctx)
	}()
	model := viewerModel{viewers: cfg.viewers, parallel: cfg.parallel, projects: len(d.t.projects), zipf: f.zipf,
		think: f.think, seed: d.f.seed}
	loads := runViewers(ctx, model, f.warmup, f.run, dos...)
	var shared runReport
	v0, v1 := <-first, d.versionSeq(ctx)
	shared.Moves = v1 - v0
	if err := d.pg.QueryRow(ctx, "SELECT count(*), count(DISTINCT project_id) FROM data_versions WHERE version > $1 AND version <= $2",
		v0, v1).Scan(&shared.MovedRows, &shared.MovedProj); err != nil {
		return nil, err
	}
	stopWrites()
	shared.Writes, shared.Syncs = <-writes, <-syncs
	shared.LoadAvg = loadAvg()
	var out []runReport
	for i, run := range runs {
		r := shared
		r.Name, r.Path, r.Cache, r.Grain, r.Viewers, r.Parallel = run.name, "http", run.cache.String(), run.grain, run.viewers, run.parallel
		if run.floor {
			r.Path, r.Cache, r.Grain = "floor", "", ""
		}
		if verify != nil && !run.floor {
			fr := verify.stop()
			r.Fresh = &fr
		}
		if a := srv.sys.Answers; a != nil && !run.floor {
			st := a.Stats()
			r.Answers = &cacheStats{Hits: st.Hits, Misses: st.Misses, Evictions: st.Evictions, Bytes: st.Bytes, Entries: st.Entries}
		}
		summariseRun(&r, loads[i])
		out = append(out, r)
	}
	return out, nil
}

// versionSeq is the data version sequence's last value (0 when it cannot be read).
func (d *dashboard) versionSeq(ctx context.Context) int64 {
	var v int64
	if err := d.pg.QueryRow(ctx, "SELECT last_value FROM data_version_seq").Scan(&v); err != nil {
		return 0
	}
	return v
}

// prefill asks every distinct tile of every page once, a few at a time.
func (d *dashboard) prefill(ctx context.Context, url string) error {
	const workers = 4
	qc := newQueryClient(url, d.t, d.pages, workers)
	start := time.Now()
	reqs := distinctTiles(d.pages)
	err := forEach(ctx, workers, reqs, func(r request) error {
		_, err := qc.check(r, false)
		return err
	})
	log.Printf("prefilled the cache with %d answers in %.1f s", len(reqs), time.Since(start).Seconds())
	return err
}

// distinctTiles are the requests of every page, the today tile (the same query at every range)
// at the first range only.
func distinctTiles(pages pageSet) []request {
	var out []request
	for pi := range pages {
		for ri := range rangeDays {
			for ti, tl := range tiles {
				if !tl.today || ri == 0 {
					out = append(out, request{project: pi, rng: ri, tile: ti})
				}
			}
		}
	}
	return out
}

// forEach calls fn for every request from workers goroutines and returns the first error (the
// others still run).
func forEach(ctx context.Context, workers int, reqs []request, fn func(request) error) error {
	next := make(chan request)
	errs := make(chan error, workers)
	for range workers {
		go func() {
			var first error
			for r := range next {
				if err := fn(r); err != nil && first == nil {
					first = err
				}
			}
			errs <- first
		}()
	}
	for _, r := range reqs {
		if ctx.Err() != nil {
			break
		}
		next <- r
	}
	close(next)
	err := ctx.Err()
	for range workers {
		if e := <-errs; e != nil && err == nil {
			err = e
		}
	}
	return err
}

// writesSettled waits (at most 10 s) until the writes in flight now have moved their data
// versions: the fact drainer's batches (an outbox_attempts row is committed before the ClickHouse
// insert and deleted in the transaction that moves the versions) and the sync batches (pending
// from before their ClickHouse insert until the transaction that applies them and moves the
// versions).
func (d *dashboard) writesSettled(ctx context.Context) error {
	var attempt int64
	var batches []string
	if err := d.pg.QueryRow(ctx, `SELECT coalesce(max(id), 0),
		ARRAY(SELECT id FROM sync_batches WHERE status = 'pending')
		FROM outbox_attempts WHERE outbox = 'fact_outbox'`).Scan(&attempt, &batches); err != nil {
		return err
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		var busy bool
		if err := d.pg.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM outbox_attempts WHERE outbox = 'fact_outbox' AND id <= $1)
			OR EXISTS (SELECT 1 FROM sync_batches WHERE id = ANY($2) AND status = 'pending')`, attempt, batches).Scan(&busy); err != nil {
			return err
		}
		if !busy {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("writes still in flight after 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
