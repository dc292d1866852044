package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"mtk/internal/jobs"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
)

// cli runs mtk with args against the test's databases and returns stdout, stderr and the exit code.
func cli(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// cliJSON runs a command with --json and decodes its object.
func cliJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, errOut, code := cli(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("mtk %v: exit %d: %s", args, code, errOut)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("mtk %v printed %q: %v", args, out, err)
	}
	return m
}

// useTestStores points the CLI's configuration at fresh databases.
func useTestStores(t *testing.T) {
	t.Helper()
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	t.Setenv("MTK_POSTGRES_URL", pg.URL)
	t.Setenv("MTK_CLICKHOUSE_URL", ch.URL)
	t.Setenv("MTK_DATA", t.TempDir())
	t.Setenv("MTK_JWT_SECRET", "")
	t.Setenv("MTK_BASE_URL", "")
}

// freeAddr is a loopback address with a port that nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// serve runs `mtk serve` with args on a free port until the test ends and returns its base URL.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	addr := freeAddr(t)
	t.Setenv("MTK_LISTEN", addr)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() { done <- run(ctx, append([]string{"serve"}, args...), io.Discard, io.Discard) }()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d after SIGTERM", code)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not shut down")
		}
	})
	base := "http://" + addr
	for i := 0; i < 100; i++ {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			return base
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("serve did not start")
	return ""
}

func get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestKeyRoundTrip(t *testing.T) {
	useTestStores(t)
	ws := cliJSON(t, "workspace", "create", "--name", "Acme", "--tier", "growth")
	wsID := ws["id"].(string)
	if !strings.HasPrefix(wsID, "ws_") || ws["tier"] != "growth" {
		t.Fatalf("workspace %v", ws)
	}
	prj := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "USD", "--timezone", "America/New_York")
	key := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "ci", "--scopes", "data:read,tracking:read", "--expires", "30d")
	token, keyID := key["token"].(string), key["id"].(string)
	if !strings.HasPrefix(token, "mtk_live_") || !strings.HasPrefix(keyID, "key_") || key["expires_at"] == nil {
		t.Fatalf("key %v", key)
	}
	base := serve(t)

	status, body := get(t, base+"/v3/projects", token)
	if status != 200 || !strings.Contains(body, prj["id"].(string)) {
		t.Fatalf("with the new key: %d %s", status, body)
	}

	out, _, code := cli(t, "key", "list", "--workspace", wsID)
	if code != 0 || !strings.Contains(out, keyID) || strings.Contains(out, token) {
		t.Fatalf("key list (exit %d) must show the id and never the token:\n%s", code, out)
	}
	if revoked := cliJSON(t, "key", "revoke", keyID); revoked["revoked_at"] == nil {
		t.Fatalf("revoke: %v", revoked)
	}
	// The server trusts a key it verified for platform.KeyCacheTTL; revoked by another process
	// (this CLI), the key stops working within it.
	deadline := time.Now().Add(platform.KeyCacheTTL + time.Second)
	for status, body = get(t, base+"/v3/projects", token); status == 200 && time.Now().Before(deadline); status, body = get(t, base+"/v3/projects", token) {
		time.Sleep(100 * time.Millisecond)
	}
	if status != 401 || !strings.Contains(body, "unauthorized") {
		t.Fatalf("after revoke: %d %s", status, body)
	}
	status, body = get(t, base+"/v3/connections/con_x/sync", token)
	if status != 401 || !strings.Contains(body, `"invalid_api_key"`) {
		t.Fatalf("after revoke: %d %s", status, body)
	}
}

func TestExpiredKeyFromThePast(t *testing.T) {
	useTestStores(t)
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "old", "--scopes", "data:read", "--expires", past)["token"].(string)
	base := serve(t)
	status, body := get(t, base+"/v3/connections/con_x/sync", token)
	if status != 401 || !strings.Contains(body, "expired_api_key") {
		t.Fatalf("%d %s", status, body)
	}
}

func TestCLIErrorsAreActionable(t *testing.T) {
	useTestStores(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"nope"}, 2, `unknown command "nope"`},
		{[]string{"key", "create", "--workspace", "ws_x"}, 2, "missing --name, --scopes"},
		{[]string{"key", "create", "--workspace", "ws_x", "--name", "n", "--scopes", "data:read,admin"}, 1, `scopes[1]: unknown scope "admin"`},
		{[]string{"key", "create", "--workspace", "ws_x", "--name", "n", "--scopes", "data:read", "--expires", "soon"}, 1, "expires"},
		{[]string{"key", "revoke", "key_nope"}, 1, "API key not found"},
		{[]string{"workspace", "create", "--name", "x", "--tier", "gold"}, 1, "tier"},
		{[]string{"project", "create", "--workspace", "ws_x", "--name", "n", "--currency", "usd", "--timezone", "Mars/Base"}, 1, "timezone"},
		{[]string{"connection", "create", "--project", "prj_x", "--kind", "alpha_ads", "--name", "n", "--source-id", "abc"}, 1, "act_<digits>"},
		{[]string{"user", "create", "--email", "bad", "--password", "short"}, 1, "password: must be at least 8 characters"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			_, errOut, code := cli(t, c.args...)
			if code != c.code || !strings.Contains(errOut, c.want) {
				t.Fatalf("exit %d (want %d), stderr:\n%s\nwant it to contain %q", code, c.code, errOut, c.want)
			}
		})
	}
}

func TestSeedDemoIsIdempotent(t *testing.T) {
	useTestStores(t)
	t.Setenv("MTK_BASE_URL", "https://demo.example")
	useAdsim(t)
	first := cliJSON(t, "seed", "demo")
	second := cliJSON(t, "seed", "demo")
	for _, k := range []string{"workspace", "project", "user"} {
		a, b := first[k].(map[string]any)["id"], second[k].(map[string]any)["id"]
		if a != b {
			t.Fatalf("%s changed between runs: %v then %v", k, a, b)
		}
	}
	if fmt.Sprint(first["keys"]) != fmt.Sprint(second["keys"]) {
		t.Fatalf("keys changed between runs:\n%v\n%v", first["keys"], second["keys"])
	}
	conns := second["connections"].([]any)
	sources := map[string]bool{}
	for _, c := range conns {
		sources[c.(map[string]any)["source"].(string)] = true
	}
	for _, s := range []string{"alpha_ads", "beta_ads", "gamma_ads", "Personalizado"} {
		if !sources[s] {
			t.Fatalf("demo lacks a %s connection: %v", s, sources)
		}
	}
	if !strings.HasPrefix(second["webhook_url"].(string), "https://demo.example/v2/tracking/generic?k=") {
		t.Fatalf("webhook_url %v", second["webhook_url"])
	}
	user := second["user"].(map[string]any)
	if user["email"] != demoEmail || user["password"] != demoPassword {
		t.Fatalf("user %v", user)
	}
	keys := second["keys"].([]any)
	base := serve(t)
	token := keys[0].(map[string]any)["token"].(string)
	if status, body := get(t, base+"/v3/projects", token); status != 200 || !strings.Contains(body, "Demo Store") {
		t.Fatalf("demo key: %d %s", status, body)
	}

	// Containers: one v3 (receiving the demo's events) and one v2, with a pixel and triggers of
	// several types, made once.
	if fmt.Sprint(first["containers"]) != fmt.Sprint(second["containers"]) {
		t.Fatalf("containers changed between runs:\n%v\n%v", first["containers"], second["containers"])
	}
	ctrs := second["containers"].([]any)
	if len(ctrs) != 2 {
		t.Fatalf("containers %v", ctrs)
	}
	v3, v2 := ctrs[0].(map[string]any), ctrs[1].(map[string]any)
	code, _ := v3["tracking_code"].(string)
	if v3["version"] != "3.0" || !strings.HasPrefix(code, "MTK-") || v3["status"] != "valid_receive_events" || // the demo sends it events
		v2["version"] != "2.0" || v2["tracking_code"] != nil || len(v3["linked_pixels"].([]any)) != 1 {
		t.Fatalf("containers %v", ctrs)
	}
	types := map[string]bool{}
	for _, c := range ctrs {
		for _, tr := range c.(map[string]any)["triggers"].([]any) {
			types[tr.(map[string]any)["trigger_type"].(string)] = true
		}
	}
	if len(types) < 4 || !types["api"] {
		t.Fatalf("trigger types %v", types)
	}
	tracking := keys[1].(map[string]any)["token"].(string)
	for _, ref := range []string{code, v2["domain"].(string)} {
		if status, body := get(t, base+"/v3/tracking/containers/"+ref+"/triggers", tracking); status != 200 || !strings.Contains(body, `"total":`) {
			t.Fatalf("demo container %s: %d %s", ref, status, body)
		}
	}

	// The demo looks like a shop: the ads' funnel rates and returns in the ranges advertisers see
	// (summed over the campaigns, as the shop's unpaid sources sell besides), some refunds and
	// pending orders, and every campaign with revenue has spend (orders carry the UTM of ads that
	// ran).
	project := second["project"].(map[string]any)["id"].(string)
	query := func(extra string) []map[string]any {
		t.Helper()
		body := `{"project_id":"` + project + `","fields":["spend","clicks","ctr","tx_revenue","tx_count","tx_count_pending","tx_count_refunded","roas"],` +
			`"time":{"start":"` + time.Now().AddDate(0, 0, -30).Format(time.DateOnly) + `","end":"` + time.Now().AddDate(0, 0, -1).Format(time.DateOnly) + `"}` + extra + `}`
		req, _ := http.NewRequest("POST", base+"/v3/query", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Data []map[string]any }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
			t.Fatalf("demo query: %d %v", resp.StatusCode, err)
		}
		return out.Data
	}
	total := query("")[0]
	if ctr := total["ctr"].(float64); ctr < 0.01 || ctr > 0.02 || total["tx_count_refunded"].(float64) == 0 || total["tx_count_pending"].(float64) == 0 {
		t.Fatalf("the demo's month: %v", total)
	}
	var spend, revenue, orders float64
	for _, c := range query(`,"metadata":{"level":"campaign"}`) {
		if c["campaign_id"] == nil {
			continue // orders of no campaign
		}
		if c["tx_revenue"].(float64) > 0 && c["spend"].(float64) == 0 {
			t.Fatalf("a campaign with revenue and no spend: %v", c)
		}
		spend, revenue, orders = spend+c["spend"].(float64), revenue+c["tx_revenue"].(float64), orders+c["tx_count"].(float64)
	}
	if roas, conv := revenue/spend, orders/total["clicks"].(float64); roas < 1.5 || roas > 4 || conv < 0.007 || conv > 0.021 {
		t.Fatalf("the ads' month: ROAS %.2f, orders per click %.4f", roas, conv)
	}
	assertDemoTraffic(t, project)
	assertDemoJourneys(t, project, query)
}

func TestBackgroundJobsRun(t *testing.T) {
	useTestStores(t)
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStores(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.pg.Exec(context.Background(), `INSERT INTO idempotency_records
		(scope, key, method, path, body_hash, status, created_at, expires_at)
		VALUES ('key:k', 'old', 'POST', '/x', '\x00', 200, now() - interval '2 days', now() - interval '1 day')`); err != nil {
		t.Fatal(err)
	}
	sys, err := wire.Build(cfg, st.pg, st.ch, wire.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sys.Close()
	runner, err := jobs.New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), sys.Jobs())
	if err != nil {
		t.Fatal(err)
	}
	if err := runner.RunNow("idempotency-purge"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := st.pg.QueryRow(context.Background(), "SELECT count(*) FROM idempotency_records").Scan(&n); err != nil || n != 0 {
		t.Fatalf("expired record left: %d %v", n, err)
	}

	// Settled conversions past their retention go: sent after 7 days, dead after 30.
	if _, err := st.pg.Exec(context.Background(), `INSERT INTO conversion_outbox (project_id, pixel_id, event_name,
		event_id, event_time, payload, status, next_attempt_at, created_at)
		SELECT 'prj_1', 'px1', 'Lead', e, now(), '{}', s, now(), now() - d * interval '1 day'
		FROM (VALUES ('a', 'sent', 8), ('b', 'sent', 1), ('c', 'dead', 31), ('d', 'dead', 8), ('e', 'pending', 40)) AS v(e, s, d)`); err != nil {
		t.Fatal(err)
	}
	stats := func() string {
		out, errOut, code := cli(t, "outbox", "stats")
		if code != 0 {
			t.Fatalf("mtk outbox stats: exit %d: %s", code, errOut)
		}
		return strings.SplitN(out, "\n", 2)[0]
	}
	if got, want := stats(), "conversions: 1 pending, 2 sent (kept 7 days), 2 dead (kept 30 days)"; got != want {
		t.Fatalf("stats before the purge: %q, want %q", got, want)
	}
	if err := runner.RunNow("conversions-purge"); err != nil {
		t.Fatal(err)
	}
	if got, want := stats(), "conversions: 1 pending, 1 sent (kept 7 days), 1 dead (kept 30 days)"; got != want {
		t.Fatalf("stats after the purge: %q, want %q", got, want)
	}

	// The stats count every outbox that waits for ClickHouse, the journey outbox too.
	if _, err := st.pg.Exec(context.Background(), `INSERT INTO journey_outbox (project_id, timezone, kind, ts, lead_id, created_at)
		VALUES ('prj_1', 'UTC', 'touch', now(), 'ld_1', now())`); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := cli(t, "outbox", "stats"); code != 0 || !strings.HasSuffix(out, "\nfacts: 0 pending\nevents: 0 pending\njourneys: 1 pending\n") {
		t.Fatalf("mtk outbox stats: exit %d %s\n%s", code, errOut, out)
	}
	if j, _ := cliJSON(t, "outbox", "stats")["journeys"].(map[string]any); j["pending"] != 1.0 {
		t.Fatalf("mtk outbox stats --json: journeys %v", j)
	}

	// The business backfill finds nothing stored before the business facts, as a job and as a
	// command (api's TestBusinessBackfill backfills real data).
	if err := runner.RunNow("business-backfill"); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := cli(t, "backfill", "business"); code != 0 || !strings.HasSuffix(out, "business facts backfilled: 0 orders, 0 events\n") {
		t.Fatalf("mtk backfill business: exit %d %s\n%s", code, errOut, out)
	}
	// The pair backfill finds no project made before the pair rollups (api's TestPairBackfill
	// backfills real data).
	if out, errOut, code := cli(t, "backfill", "pairs"); code != 0 || !strings.HasSuffix(out, "pair rollups backfilled: 0 projects\n") {
		t.Fatalf("mtk backfill pairs: exit %d %s\n%s", code, errOut, out)
	}

	// mtk backfill journeys, and its old spelling, which still runs after a one-line notice.
	out, errOut, code := cli(t, "backfill", "journeys", "--redo")
	if code != 0 || errOut != "" {
		t.Fatalf("mtk backfill journeys: exit %d %s\n%s", code, errOut, out)
	}
	if old, errOut, code := cli(t, "journeys", "backfill", "--redo"); code != 0 || old != out ||
		errOut != "mtk: \"mtk journeys backfill\" is deprecated; use \"mtk backfill journeys\"\n" {
		t.Fatalf("mtk journeys backfill: exit %d, stderr %q\n%s", code, errOut, old)
	}
}

// mtk serve starts and takes events while ClickHouse is down: acknowledging needs PostgreSQL
// only (the events wait in its outbox), and /readyz names the missing store.
func TestServeStartsWithClickHouseDown(t *testing.T) {
	useTestStores(t)
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	prjID := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", "USD", "--timezone", "UTC")["id"].(string)
	cliJSON(t, "container", "create", "--project", prjID, "--domain", "shop.example")
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "ingest", "--scopes", "tracking:write")["token"].(string)
	t.Setenv("MTK_CLICKHOUSE_URL", "clickhouse://127.0.0.1:1/mtk_down?dial_timeout=200ms")
	base := serve(t)

	req, _ := http.NewRequest("POST", base+"/v3/tracking/events", strings.NewReader(`{"config":{"name":"Lead"},"lead":{"email":"a@b.com"}}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"lead_id":"lead_`) {
		t.Fatalf("event with ClickHouse down: %d %s", resp.StatusCode, body)
	}
	status, ready := get(t, base+"/readyz", "")
	if status != 503 || !strings.Contains(ready, `"clickhouse":"unavailable"`) || !strings.Contains(ready, `"postgres":"ok"`) {
		t.Fatalf("/readyz: %d %s", status, ready)
	}
}
