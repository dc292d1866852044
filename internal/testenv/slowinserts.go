package testenv

import (
	"io"
	"net"
	"regexp"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// SlowInserts is a TCP proxy in front of ClickHouse's native port that makes chosen inserts
// slow, as a busy server does: it passes an INSERT's query at once (the server starts the
// statement and lists it in system.processes) but holds the insert's data, its last packets, for
// hold before passing them on. Whether the client is still there or not, the server then gets
// the whole insert and stores it: a client killed meanwhile leaves an orphaned INSERT that lands
// seconds later, as on a busy server.
type SlowInserts struct {
	ln     net.Listener
	server string
	hold   time.Duration
	slow   func(table string) bool
	held   func(table string)
	// Holding counts the inserts being held, orphaned ones included.
	Holding atomic.Int64
	wg      sync.WaitGroup
}

// insertInto finds the table of an INSERT in the client's bytes (the query packet is not
// compressed; data blocks are).
var insertInto = regexp.MustCompile(`INSERT INTO (\w+)`)

// NewSlowInserts proxies to the native address server (host:port) until the test ends. slow says
// whether an insert into a table is held, held is told when one starts being held (both may be
// called from several goroutines).
func NewSlowInserts(t testing.TB, server string, hold time.Duration, slow func(table string) bool, held func(table string)) *SlowInserts {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &SlowInserts{ln: ln, server: server, hold: hold, slow: slow, held: held}
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.wg.Wait() })
	return p
}

// Addr is the proxy's address.
func (p *SlowInserts) Addr() string { return p.ln.Addr().String() }

func (p *SlowInserts) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.pipe(client) }()
	}
}

// pipe carries one connection. After the client sends an INSERT's query, the server answers with
// the table's header; the client's next bytes are the data, held when the table is slow.
func (p *SlowInserts) pipe(client net.Conn) {
	defer client.Close()
	server, err := net.Dial("tcp", p.server)
	if err != nil {
		return
	}
	defer server.Close()
	var mu sync.Mutex
	var queried, answered string // an insert's table: its query sent; the server's header back
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 64<<10)
		for {
			n, err := server.Read(buf)
			if n > 0 {
				mu.Lock()
				if queried != "" {
					answered, queried = queried, ""
				}
				mu.Unlock()
				if _, werr := client.Write(buf[:n]); werr != nil {
					io.Copy(io.Discard, server) //nolint:errcheck // the client is gone: the server finishes alone
					return
				}
			}
			if err != nil {
				client.Close()
				return
			}
		}
	}()
	buf := make([]byte, 64<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			mu.Lock()
			table := answered
			answered = ""
			if m := insertInto.FindSubmatch(buf[:n]); m != nil {
				queried = string(m[1])
			}
			mu.Unlock()
			if table != "" && p.slow(table) {
				p.Holding.Add(1)
				p.held(table)
				time.Sleep(p.hold)
				p.Holding.Add(-1)
			}
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			// The client is gone (or done): the server reads to the end of what it sent.
			server.(*net.TCPConn).CloseWrite() //nolint:errcheck
			<-done
			return
		}
	}
}
