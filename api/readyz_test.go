package api_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"mtk/api"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/db"
	"mtk/internal/testenv"
)

// proxy forwards TCP connections to a store. Cut drops every connection and then refuses new
// ones (accepting and closing them at once) like a store that went away, or holds them without
// an answer like an unreachable host; Restore forwards again.
type proxy struct {
	ln     net.Listener
	target string

	mu    sync.Mutex
	down  bool
	hold  bool
	conns map[net.Conn]bool
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	t.Cleanup(func() { ln.Close(); p.Cut(false) })
	return p
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go p.forward(c)
	}
}

func (p *proxy) forward(c net.Conn) {
	p.mu.Lock()
	down, hold := p.down, p.hold
	if down && hold {
		p.conns[c] = true // answered never; closed by Restore
	}
	p.mu.Unlock()
	if down {
		if !hold {
			c.Close()
		}
		return
	}
	s, err := net.Dial("tcp", p.target)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, s) {
		return
	}
	go func() { io.Copy(s, c); s.Close(); c.Close() }() //nolint:errcheck
	io.Copy(c, s)                                       //nolint:errcheck
	c.Close()
	s.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, s)
	p.mu.Unlock()
}

// track records a forwarded pair, or closes it when the proxy was cut meanwhile.
func (p *proxy) track(c, s net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.down {
		c.Close()
		s.Close()
		return false
	}
	p.conns[c], p.conns[s] = true, true
	return true
}

// Cut drops the forwarded connections; new ones are closed at once, or held when hold is true.
func (p *proxy) Cut(hold bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down, p.hold = true, hold
	p.closeAll()
}

// Restore forwards new connections again (and closes those held).
func (p *proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
	p.closeAll()
}

func (p *proxy) closeAll() {
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// via is raw (a store URL) with its host replaced by the proxy's address.
func (p *proxy) via(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = p.ln.Addr().String()
	return u.String()
}

func storeHost(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// /readyz goes 503 while a store is unreachable and back to 200 by itself when it returns: the
// pools drop their broken connections and open new ones, without a restart. The stores are cut
// at a TCP proxy between the server and them; the shared servers keep running.
func TestReadyzFollowsStoresDownAndBack(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	pgProxy, chProxy := startProxy(t, storeHost(t, pg.URL)), startProxy(t, storeHost(t, ch.URL))
	ctx := context.Background()
	pool, err := db.OpenPostgres(ctx, pgProxy.via(t, pg.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	conn, err := db.OpenClickHouse(ctx, chProxy.via(t, ch.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	clk := clock.NewFake(time.Now())
	e := &env{t: t, clock: clk, logs: &bytes.Buffer{}}
	e.app = api.New(systemOver(t, config.Config{}, pool, conn, clk, slog.New(slog.NewJSONHandler(e.logs, nil))).API())

	ready := func() (int, string, string) {
		t.Helper()
		r := e.do("GET", "/readyz", nil)
		body := r.JSON(t)
		return r.Status, body["postgres"].(string), body["clickhouse"].(string)
	}
	// recovers waits until /readyz answers 200 again, as a load balancer's probe would.
	recovers := func(what string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			status, p, c := ready()
			if status == 200 && p == "ok" && c == "ok" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("after %s came back, /readyz still answers %d (postgres %s, clickhouse %s)", what, status, p, c)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	recovers("the start")
	// Use both pools first, so that they hold connections that the cut breaks.
	if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	if err := conn.Exec(ctx, "SELECT 1"); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name           string
		cut            []*proxy
		hold           bool
		pgWant, chWant string
	}{
		{"postgres", []*proxy{pgProxy}, false, "unavailable", "ok"},
		{"clickhouse", []*proxy{chProxy}, false, "ok", "unavailable"},
		{"both stores", []*proxy{pgProxy, chProxy}, false, "unavailable", "unavailable"},
		// A store that never answers takes its whole timeout, and not the other's.
		{"postgres, silent", []*proxy{pgProxy}, true, "unavailable", "ok"},
		{"clickhouse, silent", []*proxy{chProxy}, true, "ok", "unavailable"},
	} {
		for _, p := range c.cut {
			p.Cut(c.hold)
		}
		// Twice: a second probe finds no connection left to reuse and must dial.
		for range 2 {
			if status, p, ch := ready(); status != 503 || p != c.pgWant || ch != c.chWant {
				t.Fatalf("%s down: /readyz %d, postgres %s, clickhouse %s", c.name, status, p, ch)
			}
		}
		for _, p := range c.cut {
			p.Restore()
		}
		recovers(c.name)
	}
}
