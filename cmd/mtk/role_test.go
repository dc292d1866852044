package main

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Each role runs its part: an api process takes an event but drains nothing; a worker serves
// only /healthz, /readyz and /metrics (every other path 404, the API's included) and drains what
// the api process took.
func TestServeRoles(t *testing.T) {
	useTestStores(t)
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	prjID := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "USD", "--timezone", "UTC")["id"].(string)
	cliJSON(t, "container", "create", "--project", prjID, "--domain", "shop.example")
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "ingest", "--scopes", "tracking:write,data:read")["token"].(string)
	ctx := context.Background()
	pg, err := pgx.Connect(ctx, os.Getenv("MTK_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	queued := func() int {
		t.Helper()
		var n int
		if err := pg.QueryRow(ctx, "SELECT count(*) FROM event_outbox").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	apiBase := serve(t, "--role", "api")
	if status, _, _, err := postEvent(apiBase, token, "k1", `{"config":{"name":"Lead"},"lead":{"email":"a@b.com"}}`); err != nil || status != 200 {
		t.Fatalf("event to the api role: %d %v", status, err)
	}
	// What must not happen has no condition to wait on: give the api role two of the event
	// drainer's 1 s cycles, in which a drainer it ran would have moved the event.
	time.Sleep(2500 * time.Millisecond)
	if n := queued(); n != 1 {
		t.Fatalf("the api role drained: %d events queued, want 1", n)
	}

	workerBase := serve(t, "--role", "worker")
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if status, body := get(t, workerBase+path, ""); status != 200 {
			t.Errorf("worker GET %s: %d %s", path, status, body)
		}
	}
	for _, path := range []string{"/v3/projects", "/v3/openapi.json", "/dashboard", "/docs"} {
		if status, body := get(t, workerBase+path, token); status != 404 || !strings.Contains(body, `"resource_not_found"`) {
			t.Errorf("worker GET %s: %d %s, want 404 resource_not_found", path, status, body)
		}
	}
	req, _ := http.NewRequest("POST", workerBase+"/v3/query", strings.NewReader(`{}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("worker POST /v3/query: %d, want 404", resp.StatusCode)
	}
	deadline := time.Now().Add(15 * time.Second)
	for queued() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not drain the event outbox")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An unknown role is a usage error (exit 2) that names the choices.
func TestServeRefusesUnknownRole(t *testing.T) {
	_, errOut, code := cli(t, "serve", "--role", "both")
	if code != 2 || !strings.Contains(errOut, "want all, api or worker") {
		t.Fatalf("mtk serve --role both: exit %d, stderr %q", code, errOut)
	}
}
