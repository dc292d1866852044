package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/db"
)

// asMTK, set in a process's environment, makes the test binary mtk itself, run with the
// arguments that follow it in MTK_TEST_ARGS: a test can then kill a real `mtk serve` process.
const asMTK = "MTK_TEST_AS_MTK"

func TestMain(m *testing.M) {
	if os.Getenv(asMTK) == "1" {
		os.Args = append([]string{"mtk"}, strings.Fields(os.Getenv("MTK_TEST_ARGS"))...)
		main()
	}
	os.Exit(m.Run())
}

// serveProcess starts `mtk serve` with args as a process of its own on a free port, with the
// test's environment, and returns it with its base URL once it answers.
func serveProcess(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	return serveProcessEnv(t, nil, args...)
}

// serveProcessEnv is serveProcess with env (NAME=value) added to the test's environment.
func serveProcessEnv(t *testing.T, env []string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), env...), asMTK+"=1", "MTK_TEST_ARGS="+strings.Join(append([]string{"serve"}, args...), " "),
		"MTK_LISTEN="+addr, "MTK_METRICS=off")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) //nolint:errcheck // killed or already gone
	base := "http://" + addr
	for range 200 {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return cmd, base
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("mtk serve did not start")
	return nil, ""
}

// postEvent sends an event with an Idempotency-Key and returns the answer's status, its
// Retry-After and whether it was a replay; err when no answer came.
func postEvent(base, token, key, body string) (status, retryAfter int, replayed bool, err error) {
	req, _ := http.NewRequest("POST", base+"/v3/tracking/events", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, 0, false, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body) //nolint:errcheck
	retryAfter, _ = strconv.Atoi(resp.Header.Get("Retry-After"))
	return resp.StatusCode, retryAfter, resp.Header.Get("X-Idempotent-Replayed") == "true", nil
}

// mtk is killed (SIGKILL) between an event's Idempotency-Key claim and its batch's commit: the
// retry, sent to a server started again, is processed within the Retry-After it is told (the
// dead process's claim is free once its lease ends, never 409 for minutes), and the event is
// stored once.
func TestKilledServerFreesItsKeys(t *testing.T) {
	useTestStores(t)
	ctx := context.Background()
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	prjID := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "USD", "--timezone", "UTC")["id"].(string)
	cliJSON(t, "container", "create", "--project", prjID, "--domain", "shop.example")
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "ingest", "--scopes", "tracking:write")["token"].(string)
	const body = `{"event_id":"killed-1","config":{"name":"Lead"},"lead":{"email":"a@b.com"}}`
	proc, base := serveProcess(t)

	// The event's batch waits on a lock of its first statements, after its key was claimed.
	lock := holdLock(ctx, t, "LOCK TABLE event_ids IN ACCESS EXCLUSIVE MODE")
	sent := make(chan error, 1)
	go func() {
		_, _, _, err := postEvent(base, token, "killed-1", body)
		sent <- err
	}()
	for i := 0; ; i++ {
		var claimed, waiting int
		if err := lock.QueryRow(ctx, `SELECT (SELECT count(*) FROM idempotency_records WHERE status IS NULL),
			(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock')`).
			Scan(&claimed, &waiting); err != nil {
			t.Fatal(err)
		}
		if claimed == 1 && waiting > 0 {
			break
		}
		if i == 500 {
			t.Fatalf("the event never waited with its key claimed (%d claimed, %d waiting)", claimed, waiting)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := proc.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	proc.Wait() //nolint:errcheck // killed
	killed := time.Now()
	if err := <-sent; err == nil {
		t.Fatal("the killed server answered")
	}
	if err := lock.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	// The client retries: at once on a server started again, then after the Retry-After it is told.
	base = serve(t)
	for {
		status, retryAfter, replayed, err := postEvent(base, token, "killed-1", body)
		if err != nil {
			t.Fatal(err)
		}
		if status == 200 {
			if replayed {
				t.Fatal("replayed an answer that the killed server never stored")
			}
			break
		}
		if status != 409 || retryAfter < 1 || retryAfter > 2 {
			t.Fatalf("retry: %d with Retry-After %d, want 200, or 409 for at most the lease", status, retryAfter)
		}
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("still 409 %s after the kill: the key outlived its lease", time.Since(killed))
		}
		time.Sleep(time.Duration(retryAfter) * time.Second)
	}

	ch, err := db.OpenClickHouse(ctx, os.Getenv("MTK_CLICKHOUSE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer ch.Close()
	// Once the event outbox is empty and no drain attempt is open, every insert that could carry
	// the event has ended and been settled: nothing else of it can arrive.
	pg := lock.Conn()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var pending int
		if err := pg.QueryRow(ctx, "SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM outbox_attempts WHERE outbox = 'event_outbox')").Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d event outbox rows and drain attempts still open after 10 s", pending)
		}
	}
	var stored uint64
	if err := ch.QueryRow(ctx, "SELECT count() FROM events WHERE event_id = 'killed-1'").Scan(&stored); err != nil || stored != 1 {
		t.Fatalf("the event is stored %d times in ClickHouse (%v), want once", stored, err)
	}
}

// holdLock runs stmt (a LOCK TABLE) in a transaction of its own connection to the test's
// PostgreSQL (MTK_POSTGRES_URL), so that the processes under test wait on it until the test
// rolls the transaction back; the connection closes when the test ends.
func holdLock(ctx context.Context, t *testing.T, stmt string) pgx.Tx {
	t.Helper()
	locker, err := pgx.Connect(ctx, os.Getenv("MTK_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { locker.Close(context.Background()) }) //nolint:errcheck
	lock, err := locker.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Exec(ctx, stmt); err != nil {
		t.Fatal(err)
	}
	return lock
}
