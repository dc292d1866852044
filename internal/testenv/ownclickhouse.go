package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// OwnClickHouse is a clickhouse-server of one test's own, for faults no test may cause on the
// shared one (SIGSTOP, kill): its URL (for MTK_CLICKHOUSE_URL, so that ClickHouse(t) makes the
// test's database there), its HTTP port (for MTK_CH_HTTP_PORT, so that the database's HTTPURL
// is there too) and its process.
type OwnClickHouse struct {
	URL      string
	HTTPPort string
	Process  *os.Process
}

// StartClickHouse starts a clickhouse-server on free loopback ports with its data in a temporary
// folder, configured as scripts/services.sh configures the shared one (scripts/clickhouse-xml.sh),
// and waits until it answers. It is continued and killed when the test ends.
func StartClickHouse(t testing.TB) OwnClickHouse {
	t.Helper()
	dir := t.TempDir()
	native, http := freePort(t), freePort(t)
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "scripts", "clickhouse-xml.sh")
	own := fmt.Sprintf("<http_port>%d</http_port><tcp_port>%d</tcp_port>", http, native)
	cfg := exec.Command("bash", "-c", `. "$1" && ch_write_config "$2" 1000000000 16777216`, "bash", script, dir)
	cfg.Stdin = strings.NewReader(own)
	if out, err := cfg.CombinedOutput(); err != nil {
		t.Fatalf("testenv: clickhouse config: %v\n%s", err, out)
	}
	cmd := exec.Command("clickhouse-server", "--config-file="+filepath.Join(dir, "config.xml"))
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Fatalf("testenv: start clickhouse-server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGCONT) // a test that failed while it was stopped
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", native)
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("testenv: clickhouse-server on %s did not start (its log: %s)", addr, filepath.Join(dir, "log"))
		}
	}
	return OwnClickHouse{URL: "clickhouse://" + addr + "/default", HTTPPort: fmt.Sprint(http), Process: cmd.Process}
}

// freePort is a loopback port nothing listens on now.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
