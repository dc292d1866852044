package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/internal/adsim"
	"mtk/platform"
)

// salesWorld is a project whose events and orders write facts: an alpha connection synced from
// the simulator (so that a UTM naming its ad is attributed), a custom connection taking orders on
// its webhook, a container taking events, and a key that writes events and reads answers. It is
// made through the CLI, on the test's stores.
type salesWorld struct {
	st      stores
	project string
	zone    *time.Location // the project's
	token   string
	webhook string // the orders' path and query, without the server
	utm     map[string]string
}

func newSalesWorld(t *testing.T) salesWorld {
	t.Helper()
	sim := useAdsim(t)
	var acct adsim.AccountInfo
	for _, a := range sim.Accounts() {
		if a.Network == adsim.Alpha {
			acct = a
			break
		}
	}
	wsID := cliJSON(t, "workspace", "create", "--name", "Acme")["id"].(string)
	prjID := cliJSON(t, "project", "create", "--workspace", wsID, "--name", "Shop", "--currency", acct.Currency, "--timezone", acct.TimeZone)["id"].(string)
	alpha := cliJSON(t, "connection", "create", "--project", prjID, "--kind", platform.KindAlpha, "--name", acct.Name,
		"--source-id", acct.ID, "--api-base-url", networks.APIRoot(platform.KindAlpha, os.Getenv("MTK_ADSIM_URL")), "--access-token", acct.AccessToken)["id"].(string)
	hook, err := url.Parse(cliJSON(t, "connection", "create", "--project", prjID, "--kind", platform.KindCustom, "--name", "Checkout")["webhook_url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	cliJSON(t, "container", "create", "--project", prjID, "--domain", "shop.example")
	token := cliJSON(t, "key", "create", "--workspace", wsID, "--name", "shop", "--scopes", "tracking:write,data:read")["token"].(string)
	if _, errOut, code := cli(t, "sync", "now", "--connection", alpha); code != 0 {
		t.Fatalf("mtk sync now: exit %d: %s", code, errOut)
	}
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	st, err := openStores(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Close)
	objs, err := adsync.NewStore(st.pg).Objects(context.Background(), alpha)
	if err != nil {
		t.Fatal(err)
	}
	var ads []string
	for id, o := range objs {
		if o.Level == adsync.LevelAd {
			ads = append(ads, id)
		}
	}
	if len(ads) == 0 {
		t.Fatal("the sync stored no ads")
	}
	slices.Sort(ads)
	ad := objs[ads[0]]
	set, camp := objs[ad.ParentID], objs[ad.CampaignID]
	zone, err := time.LoadLocation(acct.TimeZone)
	if err != nil {
		t.Fatal(err)
	}
	return salesWorld{st: st, project: prjID, zone: zone, token: token, webhook: hook.RequestURI(),
		utm: map[string]string{"utm_source": platform.KindAlpha, "utm_campaign": camp.Name + "|" + camp.ID,
			"utm_medium": set.Name + "|" + set.ID, "utm_content": ad.Name + "|" + ad.ID}}
}

// withPGSetting sets a PostgreSQL setting for every session the test's mtk opens, in
// MTK_POSTGRES_URL (a runtime parameter of the connection).
func withPGSetting(t *testing.T, name, value string) {
	t.Helper()
	u, err := url.Parse(os.Getenv("MTK_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(name, value)
	u.RawQuery = q.Encode()
	t.Setenv("MTK_POSTGRES_URL", u.String())
}

// postOrder sends an approved order of value cents with the world's UTM to base's webhook, as a
// checkout does (no Idempotency-Key: a resend is an upsert of the same transaction), and returns
// the answer's status; err when no answer came.
func (w salesWorld) postOrder(base, id string, value int, created time.Time) (int, error) {
	body, _ := json.Marshal(map[string]any{"transaction": map[string]any{
		"id": id, "status": "approved", "value": value, "created_at": created.UTC().Format(time.RFC3339),
		"customer": map[string]any{"email": id + "@buyer.example"}, "utm": w.utm,
		"items": []map[string]any{{"id": "sku-1", "name": "Shoe", "quantity": 1, "unit_price": value, "cost": value / 2}}}})
	resp, err := http.Post(base+w.webhook, "application/json", bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body) //nolint:errcheck
	return resp.StatusCode, nil
}

// count is one number that sql (with args) selects from PostgreSQL.
func (w salesWorld) count(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := w.st.pg.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// drained waits until the event and fact outboxes are empty: every row a worker moved into
// ClickHouse.
func (w salesWorld) drained(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for w.count(t, "SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM fact_outbox)") != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the outboxes were not drained in 30 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// query asks base the world's query body, with If-None-Match etag unless empty, and returns the
// status, the ETag, whether the answer cache answered and the body.
func (w salesWorld) query(t *testing.T, base, body, etag string) (status int, tag string, hit bool, out string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v3/query", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+w.token)
	req.Header.Set("Content-Type", "application/json")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("ETag"), strings.Contains(resp.Header.Get("Server-Timing"), "cache;desc=hit"), string(b)
}

// shop adds a project of the world's workspace with a container on domain, and returns its id:
// events naming the domain go to it.
func (w salesWorld) shop(t *testing.T, domain string) string {
	t.Helper()
	var ws string
	if err := w.st.pg.QueryRow(context.Background(), "SELECT workspace_id FROM projects WHERE id = $1", w.project).Scan(&ws); err != nil {
		t.Fatal(err)
	}
	id := cliJSON(t, "project", "create", "--workspace", ws, "--name", domain, "--currency", "USD", "--timezone", "UTC")["id"].(string)
	cliJSON(t, "container", "create", "--project", id, "--domain", domain)
	return id
}

// event is an event (a Lead with the world's UTM) for the container of domain, with its
// Idempotency-Key and event_id both id, as an SDK sends it and resends it.
func (w salesWorld) event(domain, id string) string {
	b, _ := json.Marshal(map[string]any{"event_id": id, "domain": domain, "config": map[string]any{"name": "Lead"},
		"lead": map[string]any{"email": id + "@visitor.example"}, "utm": w.utm})
	return string(b)
}

// exactlyOnce checks that the projects hold each of the events and orders once: in PostgreSQL
// (event ids, orders) and, drained, in ClickHouse (events; the orders' facts, one tx_count each).
func (w salesWorld) exactlyOnce(t *testing.T, projects []string, events, orders map[string]bool) {
	t.Helper()
	w.drained(t)
	ctx := context.Background()
	var pgEvents, pgOrders int64
	for _, p := range projects {
		pgEvents += w.count(t, "SELECT count(*) FROM event_ids WHERE project_id = $1", p)
		pgOrders += w.count(t, "SELECT count(*) FROM orders WHERE project_id = $1", p)
	}
	if pgEvents != int64(len(events)) || pgOrders != int64(len(orders)) {
		t.Errorf("PostgreSQL holds %d events and %d orders, want the %d and %d acknowledged", pgEvents, pgOrders, len(events), len(orders))
	}
	stored := map[string]int{}
	var facts, factIDs, txCount int64
	for _, p := range projects {
		rows, err := w.st.ch.Query(ctx, "SELECT event_id, toInt64(count()) FROM events WHERE project_id = ? GROUP BY event_id", p)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id string
			var n int64
			if err := rows.Scan(&id, &n); err != nil {
				t.Fatal(err)
			}
			stored[id] += int(n)
		}
		rows.Close()
		var n, ids, tx int64
		if err := w.st.ch.QueryRow(ctx, `SELECT toInt64(count()), toInt64(uniqExact(outbox_id)), toInt64(sum(tx_count))
			FROM facts_raw WHERE project_id = ? AND outbox_id > 0`, p).Scan(&n, &ids, &tx); err != nil {
			t.Fatal(err)
		}
		facts, factIDs, txCount = facts+n, factIDs+ids, txCount+tx
	}
	for id := range events {
		if stored[id] != 1 {
			t.Errorf("acknowledged event %s is in ClickHouse %d times, want once", id, stored[id])
		}
	}
	if len(stored) != len(events) {
		t.Errorf("ClickHouse holds %d events, %d acknowledged", len(stored), len(events))
	}
	if facts != factIDs || txCount != int64(len(orders)) {
		t.Errorf("ClickHouse holds %d fact rows of %d outbox rows, tx_count %d; want each outbox row once and %d orders",
			facts, factIDs, txCount, len(orders))
	}
}
