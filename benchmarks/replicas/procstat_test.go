package main

import (
	"net"
	"os"
	"testing"
	"time"

	"mtk/benchmarks/internal/procstat"
)

// TestListenerAndProcessCPU: the process listening on a port is found through /proc, and its
// CPU grows with work.
func TestListenerAndProcessCPU(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	pid, err := listener(ln.Addr().(*net.TCPAddr).Port)
	if err != nil || pid != os.Getpid() {
		t.Fatalf("listener: %d, %v; want %d", pid, err, os.Getpid())
	}
	before := procstat.CPU(pid)
	// Work until the CPU read has grown, on a machine others may keep busy.
	for end := time.Now().Add(5 * time.Second); procstat.CPU(pid)-before < 2*procstat.ClockTick; {
		if time.Now().After(end) {
			t.Fatalf("CPU still %s after 5 s of work", procstat.CPU(pid))
		}
	}
	if procstat.CPU(-1) != 0 {
		t.Error("a missing process has CPU")
	}
}

// TestSincePerUnit: what was spent between two samples, per unit, counting backends that
// appeared between them in full.
func TestSincePerUnit(t *testing.T) {
	a := sample{trips: 10, statements: 20, pgCPU: map[int]time.Duration{1: time.Second}, chCPU: time.Second}
	b := sample{trips: 30, statements: 60, pgCPU: map[int]time.Duration{1: 2 * time.Second, 2: time.Second}, chCPU: 3 * time.Second,
		chStatements: 4, redisCalls: 40, redisCPU: time.Second}
	c := since(a, b, 4)
	if c.trips != 5 || c.statements != 10 || c.pgCPU != 500*time.Millisecond || c.chCPU != 500*time.Millisecond ||
		c.chStatements != 1 || c.redisCalls != 10 || c.redisCPU != 250*time.Millisecond {
		t.Errorf("%+v", c)
	}
}
