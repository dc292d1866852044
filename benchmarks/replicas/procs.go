package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// proc is one child process: an `mtk serve` or HAProxy, its output in a log file.
type proc struct {
	name   string
	cmd    *exec.Cmd
	logs   string
	exited chan struct{}
}

// fleet is the processes of one cell, stopped together.
type fleet struct{ procs []*proc }

// spawn starts name with its output in dir/name.log.
func spawn(dir, name string, cmd *exec.Cmd) (*proc, error) {
	logs := filepath.Join(dir, name+".log")
	out, err := os.Create(logs)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return nil, err
	}
	p := &proc{name: name, cmd: cmd, logs: logs, exited: make(chan struct{})}
	go func() { cmd.Wait(); out.Close(); close(p.exited) }() //nolint:errcheck // its end is seen through exited
	return p, nil
}

// stop ends p (SIGTERM, then SIGKILL past the grace mtk takes to store what it queued).
func (p *proc) stop() {
	p.cmd.Process.Signal(syscall.SIGTERM) //nolint:errcheck // already gone is fine
	select {
	case <-p.exited:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill() //nolint:errcheck
		<-p.exited
	}
}

// stop ends the fleet's processes, the last started first.
func (fl *fleet) stop() {
	for i := len(fl.procs) - 1; i >= 0; i-- {
		fl.procs[i].stop()
	}
	fl.procs = nil
}

// mtk starts `mtk serve --role role` on port over the env's databases, with Redis, partitions
// drain partitions, the balancer on lbPort trusted and named as the base URL, and rate limits
// off (as the ingest benchmark: a closed loop at full speed would be refused past the tier's
// limit). waitReady tells when it is ready.
func (fl *fleet) mtk(e *env, f flags, role string, port, partitions, lbPort int) (*proc, error) {
	name := fmt.Sprintf("%s-%d", role, port)
	cmd := exec.Command(f.mtk, "serve", "--role", role)
	cmd.Env = append(os.Environ(),
		"MTK_LISTEN=127.0.0.1:"+strconv.Itoa(port),
		"MTK_BASE_URL=http://127.0.0.1:"+strconv.Itoa(lbPort),
		"MTK_POSTGRES_URL="+e.pgURL,
		"MTK_CLICKHOUSE_URL="+e.chURL,
		"MTK_REDIS_URL="+f.redisURL,
		"MTK_DRAIN_PARTITIONS="+strconv.Itoa(partitions),
		"MTK_TRUSTED_PROXIES=127.0.0.1",
		"MTK_RATE_LIMITS=off",
		"MTK_JWT_SECRET=bench-replicas-secret-bench-replicas-secret",
	)
	p, err := spawn(e.logs, name, cmd)
	if err != nil {
		return nil, err
	}
	fl.procs = append(fl.procs, p)
	return p, nil
}

// mtkReady is mtk, returning once the process is ready.
func (fl *fleet) mtkReady(ctx context.Context, e *env, f flags, role string, port, partitions, lbPort int) error {
	p, err := fl.mtk(e, f, role, port, partitions, lbPort)
	if err != nil {
		return err
	}
	return waitReady(ctx, p, port)
}

// haproxy starts HAProxy on lbPort over the api ports, configured as make replicas configures it.
func (fl *fleet) haproxy(ctx context.Context, e *env, lbPort int, apiPorts []int) error {
	args := []string{"haproxy-config", strconv.Itoa(lbPort)}
	for _, p := range apiPorts {
		args = append(args, strconv.Itoa(p))
	}
	cfg, err := exec.Command("scripts/replicas.sh", args...).Output()
	if err != nil {
		return fmt.Errorf("scripts/replicas.sh haproxy-config: %w", err)
	}
	path := filepath.Join(e.logs, fmt.Sprintf("haproxy-%d.cfg", lbPort))
	if err := os.WriteFile(path, cfg, 0o644); err != nil {
		return err
	}
	p, err := spawn(e.logs, fmt.Sprintf("haproxy-%d", lbPort), exec.Command("haproxy", "-f", path))
	if err != nil {
		return fmt.Errorf("haproxy (make services installs it): %w", err)
	}
	fl.procs = append(fl.procs, p)
	return waitReady(ctx, p, lbPort)
}

// waitReady waits until port answers GET /readyz with 200, or p exits, or 30 s pass.
func waitReady(ctx context.Context, p *proc, port int) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", port)
	hc := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("%s exited; see %s", p.name, p.logs)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
	}
	return fmt.Errorf("%s not ready on %d after 30 s; see %s", p.name, port, p.logs)
}

// freePorts are n loopback ports free a moment ago.
func freePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	if len(ports) != n {
		return nil, errors.New("no free ports")
	}
	return ports, nil
}
