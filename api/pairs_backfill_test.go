package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
	"mtk/facts"
	"mtk/ingest/pairs"
)

// TestPairBackfill: traffic sent through the real routes before the pair rollups existed (its
// business rows with pair_rollups 0, the pair rollups empty, the project waiting in
// pair_backfill), then a backfill killed after its first statement, then one run again while
// more traffic is written and drained: every two-dimension answer and every dimension by
// campaign equals the wide rollups' answer to the cent, no row counted twice or lost, and the
// API reads the pair rollups only once the project's backfill has finished.
func TestPairBackfill(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	e.productionTraffic(a)

	// The state ClickHouse 0017 finds: rows the views never saw, rollups without them.
	if err := e.ch.Exec(ctx, "ALTER TABLE business_raw UPDATE pair_rollups = 0 WHERE project_id = ?", a.project.ID); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the mutation of business_raw", func() bool {
		var running uint64
		if err := e.ch.QueryRow(ctx, "SELECT count() FROM system.mutations WHERE database = currentDatabase() AND is_done = 0").Scan(&running); err != nil {
			t.Fatal(err)
		}
		return running == 0
	})
	for _, table := range pairs.Tables {
		if err := e.ch.Exec(ctx, "TRUNCATE TABLE "+table); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.sys.Postgres.Exec(ctx, "INSERT INTO pair_backfill (project_id) VALUES ($1)", a.project.ID); err != nil {
		t.Fatal(err)
	}

	svc := engine.New(e.ch, engine.Options{Clock: e.clock})
	scope := engine.Scope{ProjectID: a.project.ID, Currency: a.project.Currency, TimeZone: a.project.Timezone, SubHour: true,
		ConnectionIDs: []string{a.alpha.ID, a.custom.ID}}
	bodies := pairBodies(a.project.ID)
	e.clock.Advance(time.Minute) // past the project scope's cache
	// Waiting, the API answers from the wide rollups: explain names no pair rollup.
	for _, b := range []string{bodies[0], bodies[len(facts.BizPairs)]} { // a pair, a dimension by campaign
		if x := e.do("POST", "/v3/query/explain", b, bearer(a.readKey)...); x.Status != 200 || strings.Contains(string(x.Body), "business_pair_daily") ||
			strings.Contains(string(x.Body), "business_dim_entity_daily") {
			t.Fatalf("explain while waiting %s: %d %s", b, x.Status, x.Body)
		}
	}

	// A backfill killed after its first INSERT landed, before it recorded anything more.
	killed := &killAfter{Conn: e.ch, after: 1}
	if _, err := (&pairs.Backfill{Pool: e.sys.Postgres, CH: killed}).Run(ctx); !errors.Is(err, errKilled) {
		t.Fatalf("the killed run: %v", err)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM pair_backfill WHERE project_id = $1 AND query_id <> ''", a.project.ID); n != 1 {
		t.Fatalf("the killed run's try is not recorded: %d rows", n)
	}

	// More traffic queued, then drained while the backfill runs again.
	for i := range 4 {
		body := map[string]any{"event_id": fmt.Sprintf("late-%d", i), "config": map[string]any{"name": "PageView"}, "source": "website",
			"timestamp": e.clock.Now().Unix() - int64(60*(10+i)),
			"page":      map[string]any{"url": "https://acme.example/?utm_source=late&utm_medium=cpc", "referrer": "https://www.bing.com/"}}
		if r := e.event(body, append(bearer(a.key), "User-Agent", browserUAs[i].ua)...); r.Status != 200 {
			t.Fatalf("late event %d: %d %s", i, r.Status, r.Body)
		}
	}
	done := make(chan error, 1)
	go func() {
		n, err := e.sys.BackfillPairs(ctx)
		if err == nil && n != 1 {
			err = fmt.Errorf("%d projects backfilled, want 1", n)
		}
		done <- err
	}()
	e.drain()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := e.pgCount(t, "SELECT count(*) FROM pair_backfill"); n != 0 {
		t.Fatalf("%d projects still wait", n)
	}
	if n, err := e.sys.BackfillPairs(ctx); err != nil || n != 0 {
		t.Fatalf("a run with nothing left: %d, %v", n, err)
	}

	// Every pair and every dimension by campaign: the rollups' answer is the wide rollups'.
	for _, b := range bodies {
		var in engine.QueryInput
		if err := json.Unmarshal([]byte(b), &in); err != nil {
			t.Fatal(err)
		}
		wide := scope
		wide.PairsPending = true
		want, err := svc.Query(ctx, wide, in)
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.Query(ctx, scope, in)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := json.Marshal(want.Data)
		g, _ := json.Marshal(got.Data)
		if string(w) != string(g) || len(want.Data) == 0 {
			t.Errorf("%s\nrollups: %s\nwide:    %s", b, g, w)
		}
	}
	// The late rows are in, once: by utm_source and utm_medium, "late" holds 4 page views.
	var late int64
	if err := e.ch.QueryRow(ctx, `SELECT toInt64(sum(page_views)) FROM business_pair_daily WHERE project_id = ?
		AND dimension_a = 'utm_source' AND dimension_b = 'utm_medium' AND value_a = 'late'`, a.project.ID).Scan(&late); err != nil || late != 4 {
		t.Fatalf("late page views in the pair rollup: %d, %v", late, err)
	}
	// Finished, the API reads the rollups (the project's scope is read again after its TTL).
	e.clock.Advance(time.Minute)
	if x := e.do("POST", "/v3/query/explain", bodies[0], bearer(a.readKey)...); x.Status != 200 || !strings.Contains(string(x.Body), `"table":"business_pair_daily"`) {
		t.Fatalf("explain once backfilled: %d %s", x.Status, x.Body)
	}
}

// pairBodies are a traffic query by each pair of paired dimensions, then by each dimension and
// campaign, over the days of productionTraffic (a product's, order metrics only: products are
// order lines).
func pairBodies(project string) []string {
	const head = `{"project_id":"%s","fields":[%s],"time":{"start":"2026-03-01","end":"2026-03-12"},"metadata":{"dimensions":[%s]%s}}`
	const orders, all = `"tx_revenue","tx_count","tx_units"`, `"tx_revenue","tx_count","tx_units","page_views","leads","initiate_checkout"`
	var out []string
	for _, p := range facts.BizPairs {
		out = append(out, fmt.Sprintf(head, project, all, `"`+p[0]+`","`+p[1]+`"`, ""))
	}
	for _, d := range facts.BizDimensions {
		fields := all
		if strings.HasPrefix(d.Column, "product_") {
			fields = orders
		}
		out = append(out, fmt.Sprintf(head, project, fields, `"`+d.Column+`"`, `,"level":"campaign"`))
	}
	return out
}

var errKilled = errors.New("killed")

// killAfter is a ClickHouse connection whose process dies after its first after statements.
type killAfter struct {
	driver.Conn
	after int
	n     atomic.Int32
}

func (k *killAfter) Exec(ctx context.Context, query string, args ...any) error {
	if int(k.n.Add(1)) > k.after {
		return errKilled
	}
	return k.Conn.Exec(ctx, query, args...)
}
