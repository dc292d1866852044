package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"mtk/benchmarks/internal/benchenv"
	"mtk/internal/auth"
	"mtk/internal/config"
)

// dbName is the databases the benchmark makes its demo in, on both stores.
const dbName = "mtk_bench_channels"

// demoStack is a demo served as `make run` serves it, over databases of its own.
type demoStack struct {
	url, key, project string
	procs             []*exec.Cmd
	dir               string
}

// startDemo does what scripts/run.sh does over fresh databases: the ad network simulator (seed 3,
// 90 days), mtk migrate, mtk seed demo (the synced ads and 88 days of traffic through the real
// routes, e-mail, WhatsApp and organic visitors included), mtk serve; then it waits until the
// outboxes and the credit worker have caught up, so that every model has credited every order.
// The processes' output goes to a temporary directory, named when a step fails.
func startDemo(ctx context.Context, bin string) (_ *demoStack, err error) {
	pgURL, chURL, err := benchenv.FreshDatabases(ctx, config.FromEnv(), dbName)
	if err != nil {
		return nil, err
	}
	s := &demoStack{}
	defer func() {
		if err != nil {
			s.stop()
		}
	}()
	if s.dir, err = os.MkdirTemp("", "mtk-bench-channels-"); err != nil {
		return nil, err
	}
	adsimAddr, listen := freeAddr(), freeAddr()
	if adsimAddr == "" || listen == "" {
		return nil, errors.New("no free loopback port")
	}
	s.url = "http://" + listen
	env := append(os.Environ(), "MTK_POSTGRES_URL="+pgURL, "MTK_CLICKHOUSE_URL="+chURL, "MTK_ADSIM_URL=http://"+adsimAddr,
		"MTK_DATA="+s.dir, "MTK_LISTEN="+listen, "MTK_BASE_URL="+s.url, "MTK_QUERY_CACHE=off", "MTK_RATE_LIMITS=off",
		"MTK_METRICS=on", "MTK_JWT_SECRET=bench-channels-secret-bench-channels-secret")
	if err := s.spawn(env, "adsim", filepath.Join(bin, "adsim"), "-listen", adsimAddr, "-seed", "3", "-days", "90"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, time.Minute, func() bool {
		c, err := net.Dial("tcp", adsimAddr)
		if err == nil {
			c.Close()
		}
		return err == nil
	}); err != nil {
		return nil, fmt.Errorf("adsim: %w; see %s", err, s.dir)
	}
	mtk := filepath.Join(bin, "mtk")
	if _, err := s.runLogged(ctx, env, "migrate", mtk, "migrate"); err != nil {
		return nil, err
	}
	seeded, err := s.runLogged(ctx, env, "seed", mtk, "seed", "demo", "--json")
	if err != nil {
		return nil, err
	}
	if s.key, s.project, err = demoKey(seeded); err != nil {
		return nil, err
	}
	if err := s.spawn(env, "serve", mtk, "serve"); err != nil {
		return nil, err
	}
	if err := waitFor(ctx, time.Minute, func() bool { return get(s.url+"/readyz") != "" }); err != nil {
		return nil, fmt.Errorf("mtk serve not ready: %w; see %s", err, s.dir)
	}
	if err := waitFor(ctx, 20*time.Minute, func() bool { return caughtUp(get(s.url + "/metrics")) }); err != nil {
		return nil, fmt.Errorf("the credits did not catch up: %w", err)
	}
	return s, nil
}

// demoKey reads `mtk seed demo --json`: its data:read key and its project.
func demoKey(out []byte) (key, project string, err error) {
	var demo struct {
		Project struct {
			ID string `json:"id"`
		} `json:"project"`
		Keys []struct {
			Scopes []string `json:"scopes"`
			Token  string   `json:"token"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(out, &demo); err != nil {
		return "", "", fmt.Errorf("mtk seed demo --json: %w", err)
	}
	for _, k := range demo.Keys {
		if slices.Contains(k.Scopes, auth.ScopeDataRead) {
			return k.Token, demo.Project.ID, nil
		}
	}
	return "", "", errors.New("mtk seed demo --json: no data:read key")
}

// caughtUp says whether a /metrics page shows nothing waiting for ClickHouse: no credit marks nor
// credit rows, no fact nor journey rows (conversions wait for the network, not for answers).
func caughtUp(page string) bool {
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(page))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "mtk_credits_pending{") && !strings.HasPrefix(line, `mtk_outbox_pending{outbox="facts"}`) &&
			!strings.HasPrefix(line, `mtk_outbox_pending{outbox="journeys"}`) {
			continue
		}
		f := strings.Fields(line)
		if v, err := strconv.ParseFloat(f[len(f)-1], 64); err != nil || v != 0 {
			return false
		}
		seen++
	}
	return seen == 4
}

// spawn starts a process of the stack, its output in the stack's directory.
func (s *demoStack) spawn(env []string, name, path string, args ...string) error {
	out, err := os.Create(filepath.Join(s.dir, name+".log"))
	if err != nil {
		return err
	}
	cmd := exec.Command(path, args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = env, out, out
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("%s (make build makes it): %w", path, err)
	}
	s.procs = append(s.procs, cmd)
	go func() { cmd.Wait(); out.Close() }() //nolint:errcheck // its end is seen by stop
	return nil
}

// runLogged runs a command of the stack to its end and returns its standard output; its
// standard error goes to the stack's directory.
func (s *demoStack) runLogged(ctx context.Context, env []string, name, path string, args ...string) ([]byte, error) {
	errs, err := os.Create(filepath.Join(s.dir, name+".log"))
	if err != nil {
		return nil, err
	}
	defer errs.Close()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env, cmd.Stderr = env, errs
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w; see %s", path, strings.Join(args, " "), err, errs.Name())
	}
	return out, nil
}

// stop ends the stack's processes, the last started first (SIGTERM: mtk stores what it queued),
// and removes its directory.
func (s *demoStack) stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		p := s.procs[i]
		p.Process.Signal(syscall.SIGTERM) //nolint:errcheck // already gone is fine
		done := make(chan struct{})
		go func() { p.Process.Wait(); close(done) }() //nolint:errcheck // waited for its end only
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			p.Process.Kill() //nolint:errcheck
		}
	}
	if s.dir != "" {
		os.RemoveAll(s.dir)
	}
}

// waitFor polls ok every 200 ms until it holds, for at most limit.
func waitFor(ctx context.Context, limit time.Duration, ok func() bool) error {
	deadline := time.Now().Add(limit)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not after %s", limit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// get is a page's body when it answers 200, else "".
func get(url string) string {
	hc := http.Client{Timeout: 5 * time.Second}
	resp, err := hc.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	var b strings.Builder
	if _, err := bufio.NewReader(resp.Body).WriteTo(&b); err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return b.String()
}

// freeAddr is a loopback address free a moment ago ("" when none).
func freeAddr() string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return ""
	}
	defer ln.Close()
	return ln.Addr().String()
}
