package main

import (
	"context"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"

	"mtk/facts"
	"mtk/internal/testenv"
)

// drainTargets are the ClickHouse tables the outbox drainers insert into (credits_raw's views
// feed its rollups in the same statement).
var drainTargets = []string{"events", "facts_raw", "business_raw", "journeys_by_lead", "credits_raw"}

// A worker killed (SIGKILL) while its INSERT runs on a busy ClickHouse doubles nothing (issue 36,
// point 1): two `--role worker` processes drain 4 partitions through proxies that hold each
// insert's data for seconds (a busy server); on every held insert into a table that has not had
// its kills yet, the worker inserting is killed and another started. The server still gets the
// dead worker's whole insert and stores it seconds later, while another worker recovers the
// batch: every event, fact, business row, journey row and credit must still be stored once. On
// one server, and on the two-shard cluster (the proxies in front of the first shard, through
// which the workers insert into its Distributed tables).
func TestWorkerKilledMidInsertDoublesNothing(t *testing.T) {
	t.Run("one server", func(t *testing.T) { killMidInsert(t, "") })
	t.Run("cluster", func(t *testing.T) { killMidInsert(t, testenv.ClusterName) })
}

func killMidInsert(t *testing.T, cluster string) {
	useTestStores(t)
	if cluster != "" {
		t.Setenv("MTK_CLICKHOUSE_URL", testenv.ClickHouseClusterDatabase(t).URL)
		if out, errOut, code := cli(t, "migrate", "--cluster", cluster); code != 0 {
			t.Fatalf("mtk migrate --cluster: exit %d: %s%s", code, out, errOut)
		}
		t.Setenv("MTK_CLICKHOUSE_CLUSTER", cluster)
	}
	// A backend whose client is gone notices within 100 ms and frees the dead worker's locks.
	withPGSetting(t, "client_connection_check_interval", "100")
	t.Setenv("MTK_DRAIN_PARTITIONS", "4")
	t.Setenv("MTK_RATE_LIMITS", "off")
	w := newSalesWorld(t)
	projects, domains := w.partitionedShops(t, 3)
	_, api := serveProcess(t, "--role", "api")
	events, orders := w.traffic(t, api, domains, 40)

	chURL, err := url.Parse(os.Getenv("MTK_CLICKHOUSE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	killsPerTable := 2
	if cluster != "" { // slower to set up: kill once per table
		killsPerTable = 1
	}
	var mu sync.Mutex
	left := map[string]int{} // kills still to make per table: its inserts are held until then
	for _, table := range drainTargets {
		left[table] = killsPerTable
	}
	type hold struct {
		worker int
		table  string
	}
	holds := make(chan hold, 64)
	workers := map[int]*exec.Cmd{}
	var proxies []*testenv.SlowInserts
	start := func() {
		i := len(proxies)
		p := testenv.NewSlowInserts(t, chURL.Host, 3*time.Second,
			func(table string) bool { mu.Lock(); defer mu.Unlock(); return left[table] > 0 },
			func(table string) {
				select {
				case holds <- hold{worker: i, table: table}:
				default: // the kills are made
				}
			})
		proxies = append(proxies, p)
		u := *chURL
		u.Host = p.Addr()
		workers[i], _ = serveProcessEnv(t, []string{"MTK_CLICKHOUSE_URL=" + u.String()}, "--role", "worker")
	}
	// idle says whether every outbox is drained, every credit landed and no insert is held: every
	// orphaned insert stored.
	idle := func() bool {
		for _, p := range proxies {
			if p.Holding.Load() > 0 {
				return false
			}
		}
		return w.count(t, `SELECT (SELECT count(*) FROM event_outbox) + (SELECT count(*) FROM fact_outbox)
			+ (SELECT count(*) FROM journey_outbox) + (SELECT count(*) FROM credit_dirty) + (SELECT count(*) FROM credit_outbox)
			+ (SELECT count(*) FROM outbox_attempts)`) == 0
	}
	start()
	start()
	orphans := map[string]int{} // inserts left running by a killed worker, by table
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	deadline := time.Now().Add(2 * time.Minute)
	// Kill on held inserts while there is work: a table's batches may all have landed before
	// its last kills.
	for drained := false; !drained; {
		select {
		case h := <-holds:
			mu.Lock()
			cmd := workers[h.worker]
			// An insert of a worker killed before: it sent the insert, then died. Or one to kill
			// its worker on. Either is orphaned.
			orphaned := cmd == nil || left[h.table] > 0
			if orphaned {
				orphans[h.table]++
				left[h.table] = max(left[h.table]-1, 0)
			}
			mu.Unlock()
			t.Logf("worker %d's insert into %s held (worker alive: %v, orphaned: %v)", h.worker, h.table, cmd != nil, orphaned)
			if cmd == nil || !orphaned {
				continue
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait() //nolint:errcheck // killed
			delete(workers, h.worker)
			start()
		case <-tick.C:
			drained = idle()
			if time.Now().After(deadline) {
				t.Fatalf("not drained 2 minutes after the first kill (orphaned inserts %v)", orphans)
			}
		}
	}
	t.Logf("inserts orphaned by killing their worker, by table: %v", orphans)
	for _, table := range drainTargets {
		if orphans[table] == 0 {
			t.Errorf("no worker was killed while inserting into %s", table)
		}
	}
	w.exactlyOnce(t, projects, events, orders)
	w.landedOnce(t, projects, len(orders))
}

// landedOnce checks that the projects' business_raw and journeys_by_lead hold each of their
// outbox rows once, and that credits_raw and its rollups credit each of the orders once under
// every model and touch set, in the longest window (a credit outbox row landed twice credits its
// order twice; one whose rollup rows were lost credits it less in them).
func (w salesWorld) landedOnce(t *testing.T, projects []string, orders int) {
	t.Helper()
	ctx := context.Background()
	in := clickhouse.GroupSet{Value: []any{}}
	for _, p := range projects {
		in.Value = append(in.Value, p)
	}
	for _, table := range []string{"business_raw", "journeys_by_lead"} {
		var rows, ids uint64
		if err := w.st.ch.QueryRow(ctx, "SELECT count(), uniqExact(outbox_id) FROM "+table+" WHERE project_id IN ?",
			in).Scan(&rows, &ids); err != nil {
			t.Fatal(err)
		}
		if rows != ids || rows == 0 {
			t.Errorf("%s holds %d rows of %d outbox rows, want each once", table, rows, ids)
		}
		t.Logf("%s: %d rows of %d outbox rows", table, rows, ids)
	}
	models := 0
	for _, table := range facts.CreditsFamily.Tables { // the raw table and every rollup
		models += w.creditedOnce(t, table.Name, in, orders)
	}
	if models == 0 {
		t.Error("credits_raw credits no order")
	}
}

// creditedOnce checks that table, a credit table, credits each of the projects' orders once
// under every model, touch set and date, in the longest window (its whole delta sums: credits
// and unattributed parts), and returns how many of those it holds.
func (w salesWorld) creditedOnce(t *testing.T, table string, in clickhouse.GroupSet, orders int) int {
	t.Helper()
	rows, err := w.st.ch.Query(context.Background(), `SELECT model, touches, by_click, toInt64(sum(tx_count_total)) FROM `+table+`
		WHERE project_id IN ? AND window_days <= ? GROUP BY model, touches, by_click ORDER BY model, touches, by_click`,
		in, facts.MaxWindowDays)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	models := 0
	for rows.Next() {
		var model, touches string
		var byClick uint8
		var total int64
		if err := rows.Scan(&model, &touches, &byClick, &total); err != nil {
			t.Fatal(err)
		}
		models++
		if total != int64(orders)*facts.CountUnit {
			t.Errorf("%s credits %d/%d orders under %s, touches %s (by_click %d), want the %d orders once",
				table, total, facts.CountUnit, model, touches, byClick, orders)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return models
}
