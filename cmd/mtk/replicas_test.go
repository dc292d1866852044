package main

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"mtk/internal/testenv"
)

// syncBuffer collects a process's output while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// haproxy runs HAProxy, configured by scripts/replicas.sh as `make replicas` runs it, on a free
// port in front of the api replicas at bases until the test ends; it returns its base URL and
// its log (a line per request, naming the replica that answered).
func haproxy(t *testing.T, bases []string) (string, *syncBuffer) {
	t.Helper()
	addr := freeAddr(t)
	args := []string{"haproxy-config", addr[strings.LastIndexByte(addr, ':')+1:]}
	for _, base := range bases {
		u, err := url.Parse(base)
		if err != nil {
			t.Fatal(err)
		}
		args = append(args, u.Port())
	}
	cfg, err := exec.Command("../../scripts/replicas.sh", args...).Output()
	if err != nil {
		t.Fatalf("scripts/replicas.sh %v: %v", args, err)
	}
	path := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(path, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	cmd := exec.Command("haproxy", "-f", path)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("haproxy (make test installs it): %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck // killed or already gone
	base := "http://" + addr
	for range 200 {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return base, log
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("haproxy did not answer:\n%s", log)
	return "", nil
}

// Three `serve --role api` processes sharing Redis behind HAProxy act as one server: the
// default tier's limit + 1 requests spread over them get exactly one 429, and a login token
// revoked (logout) through one replica is refused by the others within 200 ms.
func TestReplicasBehindHAProxy(t *testing.T) {
	useTestStores(t)
	t.Setenv("MTK_REDIS_URL", testenv.NewRedis(t).URL)
	t.Setenv("MTK_RATE_LIMITS", "on")
	// Every replica signs and checks login tokens with the same secret.
	t.Setenv("MTK_JWT_SECRET", "replicas-test-secret-replicas-test-secret")
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "BRL", "--timezone", "America/Sao_Paulo")
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "reader", "--scopes", "data:read")["token"].(string)
	// The user's calls count in a workspace of their own, away from the key's limit.
	userWS := cliJSON(t, "workspace", "create", "--name", "Other")["id"].(string)
	cliJSON(t, "user", "create", "--email", "me@acme.test", "--password", "first-password", "--workspace", userWS)
	var bases []string
	for range 3 {
		_, base := serveProcess(t, "--role", "api")
		bases = append(bases, base)
	}
	lb, lbLog := haproxy(t, bases)

	t.Run("revocation", func(t *testing.T) {
		status, jwt := login(t, bases[0], "me@acme.test", "first-password")
		if status != 200 {
			t.Fatalf("login: %d", status)
		}
		for _, base := range bases {
			if status, body := get(t, base+"/v3/projects", jwt); status != 200 {
				t.Fatalf("%s before logout: %d %s", base, status, body)
			}
		}
		req, _ := http.NewRequest("POST", bases[0]+"/v3/auth/logout", nil)
		req.Header.Set("Authorization", "Bearer "+jwt)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 204 {
			t.Fatalf("logout: %d", resp.StatusCode)
		}
		// Well inside the caches' 2 s lifetime: only the announcement can have told them.
		deadline := time.Now().Add(200 * time.Millisecond)
		for _, base := range bases[1:] {
			for {
				status, body := get(t, base+"/v3/projects", jwt)
				if status == 401 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s 200 ms after the logout: %d %s, want 401", base, status, body)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	})

	t.Run("shared limit", func(t *testing.T) {
		const limit = 120 // the default tier's, a minute
		// The limit counts in fixed minutes: start early in one, so that every call falls in it.
		if s := time.Now().Second(); s > 40 {
			time.Sleep(time.Duration(61-s) * time.Second)
		}
		statuses := make(chan int, limit+1)
		resets := make(chan string, limit+1)
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range (limit + 1) / 8 {
					call(t, lb, token, statuses, resets)
				}
			}()
		}
		for range (limit + 1) % 8 {
			call(t, lb, token, statuses, resets)
		}
		wg.Wait()
		close(statuses)
		close(resets)
		count := map[int]int{}
		for s := range statuses {
			count[s]++
		}
		if count[200] != limit || count[429] != 1 {
			t.Fatalf("%d calls through the load balancer: %v, want %d × 200 and one 429", limit+1, count, limit)
		}
		first := <-resets
		for r := range resets {
			if r != first {
				t.Fatalf("calls in two windows (X-RateLimit-Reset %s and %s)", first, r)
			}
		}
		// Round robin: every replica answered its share.
		deadline := time.Now().Add(5 * time.Second)
		for _, server := range []string{"api/api1", "api/api2", "api/api3"} {
			for strings.Count(lbLog.String(), server+" ") < 30 {
				if time.Now().After(deadline) {
					t.Fatalf("%s answered fewer than 30 of the calls:\n%s", server, lbLog)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	})
}

// call sends GET /v3/projects with token to base and reports its status and X-RateLimit-Reset.
func call(t *testing.T, base, token string, statuses chan<- int, resets chan<- string) {
	req, _ := http.NewRequest("GET", base+"/v3/projects", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	resp.Body.Close()
	statuses <- resp.StatusCode
	resets <- resp.Header.Get("X-RateLimit-Reset")
}

// A write through one replica moves the answers every replica keeps: three api replicas behind
// HAProxy and a worker; a day's orders, asked of each replica twice (the second answer from its
// cache, and 304 for its ETag), move once an order posted to one replica is drained: each
// replica then answers the old ETag with 200, a new ETag and the new body, and keeps that.
func TestReplicasMoveCachedAnswers(t *testing.T) {
	useTestStores(t)
	w := newSalesWorld(t)
	var bases []string
	for range 3 {
		_, base := serveProcess(t, "--role", "api")
		bases = append(bases, base)
	}
	serveProcess(t, "--role", "worker")
	lb, _ := haproxy(t, bases)
	// The order's day, an hour ago, fixed: the answers are of the same day whenever they are asked.
	ordered := time.Now().Add(-time.Hour)
	day := ordered.In(w.zone).Format(time.DateOnly)
	body := `{"project_id":"` + w.project + `","fields":["tx_count","tx_revenue"],"time":{"start":"` + day + `","end":"` + day + `"}}`
	var etag, before string
	for i, base := range append(bases, lb) {
		status, tag, _, out := w.query(t, base, body, "")
		if status != 200 || tag == "" {
			t.Fatalf("replica %d: %d %q %s", i, status, tag, out)
		}
		if i == 0 {
			etag, before = tag, out
		}
		if tag != etag || out != before {
			t.Fatalf("replica %d answers %s %s, replica 0 %s %s", i, tag, out, etag, before)
		}
		if status, tag, hit, out := w.query(t, base, body, ""); status != 200 || !hit || tag != etag || out != before {
			t.Fatalf("replica %d asked again: %d, hit %v, %s %s", i, status, hit, tag, out)
		}
		if status, _, _, _ = w.query(t, base, body, etag); status != 304 {
			t.Fatalf("replica %d: If-None-Match with its ETag: %d, want 304", i, status)
		}
	}
	if !strings.Contains(before, `"tx_count":0`) {
		t.Fatalf("%s before the order: %s", day, before)
	}

	if status, err := w.postOrder(bases[1], "order-1", 12345, ordered); err != nil || status != 200 {
		t.Fatalf("order through replica 1: %d %v", status, err)
	}
	w.drained(t)
	var after string
	for _, base := range []string{bases[0], bases[2], bases[1], lb} {
		// The drain's commit announces the move; a replica hears it a moment later.
		deadline := time.Now().Add(10 * time.Second)
		status, tag, _, out := w.query(t, base, body, etag)
		for status == 304 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			status, tag, _, out = w.query(t, base, body, etag)
		}
		if status != 200 || tag == "" || tag == etag || !strings.Contains(out, `"tx_count":1`) {
			t.Fatalf("%s after the order, If-None-Match with the old ETag: %d %q %s", base, status, tag, out)
		}
		if after == "" {
			after = out
		}
		if out != after {
			t.Fatalf("%s after the order: %s, another replica %s", base, out, after)
		}
		if status, tag2, hit, out := w.query(t, base, body, ""); status != 200 || !hit || tag2 != tag || out != after {
			t.Fatalf("%s asked again after the order: %d, hit %v, %s %s", base, status, hit, tag2, out)
		}
		if status, _, _, _ := w.query(t, base, body, tag); status != 304 {
			t.Fatalf("%s: If-None-Match with the new ETag: %d, want 304", base, status)
		}
	}
}
