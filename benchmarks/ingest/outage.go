package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/db"
)

// chGate stands between mtk and ClickHouse's native port, as a stopped server looks to a client:
// Stop closes every connection and stops listening (new ones are refused), Start listens again on
// the same port. The shared ClickHouse server itself keeps running for the rest of the machine.
type chGate struct {
	target string // ClickHouse's host:port
	addr   string // the gate's host:port

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func newCHGate(target string) (*chGate, error) {
	g := &chGate{target: target, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g.addr = ln.Addr().String()
	g.serve(ln)
	return g, nil
}

func (g *chGate) serve(ln net.Listener) {
	g.mu.Lock()
	g.ln = ln
	g.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return // stopped
			}
			go g.pipe(c)
		}
	}()
}

func (g *chGate) pipe(c net.Conn) {
	up, err := net.Dial("tcp", g.target)
	if err != nil {
		c.Close()
		return
	}
	g.mu.Lock()
	g.conns[c], g.conns[up] = true, true
	g.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }() //nolint:errcheck // ends with either side
	go func() { io.Copy(c, up); done <- struct{}{} }() //nolint:errcheck
	<-done
	c.Close()
	up.Close()
	g.mu.Lock()
	delete(g.conns, c)
	delete(g.conns, up)
	g.mu.Unlock()
}

// Stop refuses new connections and resets the open ones.
func (g *chGate) Stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.ln.Close()
	for c := range g.conns {
		c.Close()
	}
}

// Start listens again on the gate's address.
func (g *chGate) Start() error {
	ln, err := net.Listen("tcp", g.addr)
	if err != nil {
		return err
	}
	g.serve(ln)
	return nil
}

// outageReport samples the event outbox through an outage of ClickHouse (from, for length) and
// says how far it grew and how long after ClickHouse came back its backlog took to drain to what
// waited before the outage.
type outageReport struct {
	before, peak int64
	caughtUp     time.Duration // 0: not within the run
}

// watchOutage cuts ClickHouse at from for length, sampling the event outbox every 100 ms until
// done is closed or the backlog is back to its level before the outage.
func watchOutage(ctx context.Context, pg *pgxpool.Pool, gate *chGate, from, length time.Duration, done <-chan struct{}) (outageReport, error) {
	var r outageReport
	// A count that PostgreSQL does not answer within a sampling period (frozen: -pg-freeze)
	// is no sample; it leaves the cut on time.
	pending := func() (n int64, ok bool, err error) {
		qctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
		defer cancel()
		err = pg.QueryRow(qctx, "SELECT count(*) FROM event_outbox").Scan(&n)
		if err != nil && db.Unavailable(err) {
			return 0, false, nil
		}
		return n, err == nil, err
	}
	start := time.Now()
	var samples []int64
	for time.Since(start) < from {
		n, ok, err := pending()
		if err != nil {
			return r, err
		}
		if ok {
			samples = append(samples, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, n := range samples {
		r.before = max(r.before, n)
	}
	gate.Stop()
	for cut := time.Now(); time.Since(cut) < length; time.Sleep(100 * time.Millisecond) {
		n, _, err := pending()
		if err != nil {
			return r, err
		}
		r.peak = max(r.peak, n)
	}
	if err := gate.Start(); err != nil {
		return r, fmt.Errorf("ClickHouse gate: %w", err)
	}
	back := time.Now()
	for {
		n, ok, err := pending()
		if err != nil {
			return r, err
		}
		r.peak = max(r.peak, n)
		if ok && n <= r.before {
			r.caughtUp = time.Since(back)
			return r, nil
		}
		select {
		case <-done:
			return r, nil
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// freezePostgres freezes PostgreSQL, as the event path sees it, from `from` into the events
// phase for length: a connection of its own locks the event outbox (the batches being stored
// wait, their calls' Idempotency-Keys claimed), then, once a batch waits, the idempotency
// records too (those calls can neither store nor remove their records, and new calls cannot
// claim keys), as a PostgreSQL that stopped answering would. Calls are answered 503 within the
// store timeout, and a retry after the Retry-After told must find its key free.
func freezePostgres(ctx context.Context, pg *pgxpool.Pool, from, length time.Duration) error {
	conn, err := pgx.ConnectConfig(ctx, pg.Config().ConnConfig.Copy())
	if err != nil {
		return err
	}
	defer conn.Close(ctx) //nolint:errcheck
	time.Sleep(from)
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx) //nolint:errcheck // the thaw
	frozen := time.Now()
	if _, err := tx.Exec(ctx, "LOCK TABLE event_outbox IN ACCESS EXCLUSIVE MODE"); err != nil {
		return err
	}
	for waiting := 0; waiting == 0 && time.Since(frozen) < length/2; time.Sleep(10 * time.Millisecond) {
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE idempotency_records IN ACCESS EXCLUSIVE MODE"); err != nil {
		return err
	}
	time.Sleep(length - time.Since(frozen))
	return tx.Rollback(ctx)
}
