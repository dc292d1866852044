package metrics_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"mtk/adsync"
	"mtk/engine"
	"mtk/facts"
	"mtk/ingest/factstream"
	"mtk/ingest/journeys"
	"mtk/internal/clock"
	"mtk/internal/metrics"
	"mtk/internal/metrics/metricstest"
	"mtk/internal/testenv"
	"mtk/platform"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func scrape(t *testing.T, m *metrics.Metrics) metricstest.Families {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	return metricstest.Parse(t, rec.Body)
}

// Every family shows what its recorders and collectors were told, with its labels.
func TestFamiliesShowWhatWasRecorded(t *testing.T) {
	pg := testenv.Postgres(t)
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	err := pgx.BeginFunc(ctx, pg.Pool, func(tx pgx.Tx) error {
		w := &pgx.Batch{}
		f := factstream.FactRow{ProjectID: "prj_1", TimeZone: "UTC", Time: t0, AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_1", AccountID: "act_1", CampaignID: "c1"}, Currency: "BRL", Values: facts.Values{facts.Leads: 1}}
		factstream.QueueFacts(w, []factstream.FactRow{f, f}, t0)
		journeys.QueueJourneys(w, []journeys.JourneyRow{{ProjectID: "prj_1", TimeZone: "UTC", Kind: journeys.JourneyTouch,
			Time: t0, LeadID: "ld_1"}}, t0.Add(30*time.Second))
		return tx.SendBatch(ctx, w).Close()
	})
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(90 * time.Second)

	m := metrics.New(clk, quiet)
	m.WatchPools(pg.Pool, ch.Conn)
	m.WatchOutboxes(pg.Pool)
	m.WatchEventQueue(func() int { return 7 })
	route := "/v3/connections/:connection_id/sync"
	m.Request(route, "GET", 200, 3*time.Millisecond)
	m.Request(route, "GET", 200, 5*time.Millisecond)
	m.Request(metrics.Unmatched, "POST", 404, time.Millisecond)
	m.Query(engine.Observation{Table: "hourly", Fallback: true, Took: 20 * time.Millisecond})
	m.Query(engine.Observation{Table: "raw", ErrorKind: engine.ErrorTimeout})
	m.EventFlush(12, 4*time.Millisecond, nil)
	m.EventFlush(3, time.Second, errors.New("store down"))
	m.EventRefused()
	m.FactsApplied(5)
	m.ConversionsSettled(2, 1)
	con := platform.Connection{ID: "con_1", Kind: platform.KindAlpha}
	m.SyncRun(con, adsync.Result{Rows: 40, Took: 2 * time.Second}, nil)
	m.SyncRun(con, adsync.Result{Rows: 3, Took: time.Second}, errors.New("HTTP 503"))

	f := scrape(t, m)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mtk_http_requests_total", []string{"route", route, "method", "GET", "status", "200"}, 2},
		{"mtk_http_request_duration_seconds", []string{"route", route, "method", "GET", "status", "200"}, 2},
		{"mtk_http_requests_total", []string{"route", "unmatched", "method", "POST", "status", "404"}, 1},
		{"mtk_query_duration_seconds", []string{"table", "hourly", "fallback", "true"}, 1},
		{"mtk_query_duration_seconds", []string{"table", "raw", "fallback", "false"}, 0},
		{"mtk_query_errors_total", []string{"kind", "timeout"}, 1},
		{"mtk_query_errors_total", []string{"kind", "unavailable"}, 0},
		{"mtk_events_batch_size", nil, 2},
		{"mtk_events_flush_duration_seconds", []string{"outcome", "ok"}, 1},
		{"mtk_events_flush_duration_seconds", []string{"outcome", "error"}, 1},
		{"mtk_events_queue_full_total", nil, 1},
		{"mtk_events_queue_length", nil, 7},
		{"mtk_outbox_pending", []string{"outbox", "facts"}, 2},
		{"mtk_outbox_pending", []string{"outbox", "conversions"}, 0},
		{"mtk_outbox_pending", []string{"outbox", "journeys"}, 1},
		{"mtk_outbox_oldest_pending_age_seconds", []string{"outbox", "facts"}, 90},
		{"mtk_outbox_oldest_pending_age_seconds", []string{"outbox", "conversions"}, 0},
		{"mtk_outbox_oldest_pending_age_seconds", []string{"outbox", "journeys"}, 60},
		{"mtk_outbox_facts_applied_total", nil, 5},
		{"mtk_outbox_conversions_sent_total", nil, 2},
		{"mtk_outbox_conversions_dead_total", nil, 1},
		{"mtk_sync_run_duration_seconds", []string{"connection_id", "con_1", "network", "alpha_ads"}, 2},
		{"mtk_sync_rows_written_total", []string{"connection_id", "con_1", "network", "alpha_ads"}, 43},
		{"mtk_sync_failures_total", []string{"connection_id", "con_1", "network", "alpha_ads"}, 1},
		{"mtk_sync_last_success_timestamp_seconds", []string{"connection_id", "con_1"}, float64(clk.Now().Unix())},
		{"mtk_postgres_max_open_connections", nil, float64(pg.Pool.Config().MaxConns)},
		{"mtk_clickhouse_max_open_connections", nil, float64(ch.Conn.Stats().MaxOpenConns)},
	} {
		if got, ok := f.Value(c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	// The collectors read the live pools: the outbox query itself acquired a connection.
	for _, name := range []string{"mtk_postgres_open_connections", "mtk_postgres_acquires_total", "mtk_clickhouse_open_connections"} {
		if v, ok := f.Value(name); !ok || v < 1 {
			t.Errorf("%s = %v (present %v), want at least 1", name, v, ok)
		}
	}
	for _, name := range []string{"mtk_postgres_in_use_connections", "mtk_clickhouse_in_use_connections", "mtk_postgres_idle_connections", "mtk_clickhouse_idle_connections",
		"mtk_postgres_acquire_waits_total", "mtk_postgres_acquire_wait_seconds_total", "go_goroutines", "process_cpu_seconds_total"} {
		if _, ok := f.Value(name); !ok {
			t.Errorf("%s is missing", name)
		}
	}
	problems, err := testutil.GatherAndLint(m.Gatherer())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		if strings.HasPrefix(p.Metric, "mtk_") {
			t.Errorf("lint: %s: %s", p.Metric, p.Text)
		}
	}
}

// With PostgreSQL down, the outbox gauges are left out and everything else is served.
func TestOutboxScrapeFailureLeavesTheRest(t *testing.T) {
	ch := testenv.ClickHouse(t)
	pool, err := pgxpool.New(context.Background(), "postgres://postgres@127.0.0.1:1/none?sslmode=disable&connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	m := metrics.New(clock.Real{}, quiet)
	m.WatchPools(pool, ch.Conn)
	m.WatchOutboxes(pool)
	m.EventRefused()
	f := scrape(t, m)
	if _, ok := f.Value("mtk_outbox_pending"); ok {
		t.Error("outbox backlog reported without its database")
	}
	for _, name := range []string{"mtk_events_queue_full_total", "mtk_postgres_open_connections", "mtk_clickhouse_open_connections"} {
		if _, ok := f.Value(name); !ok {
			t.Errorf("%s is missing", name)
		}
	}
}

// Concurrent requests of new and known label sets are all counted.
func TestRequestsCountedConcurrently(t *testing.T) {
	m := metrics.New(clock.Real{}, quiet)
	routes := []string{"/a", "/b/:id", "/c"}
	var wg sync.WaitGroup
	for i := range 300 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m.Request(routes[i%3], "GET", 200+i%2, time.Millisecond)
		}()
	}
	wg.Wait()
	f := scrape(t, m)
	total := 0.0
	for _, r := range routes {
		for _, s := range []string{"200", "201"} {
			v, _ := f.Value("mtk_http_requests_total", "route", r, "status", s)
			total += v
		}
	}
	if total != 300 {
		t.Fatalf("counted %v requests, want 300", total)
	}
}

// Counting a request of a known label set allocates nothing: the ingest path takes thousands a
// second.
func TestRequestDoesNotAllocate(t *testing.T) {
	m := metrics.New(clock.Real{}, quiet)
	m.Request("/v3/tracking/events", "POST", 200, time.Millisecond)
	if n := testing.AllocsPerRun(1000, func() { m.Request("/v3/tracking/events", "POST", 200, time.Millisecond) }); n != 0 {
		t.Fatalf("%v allocations per request", n)
	}
	if n := testing.AllocsPerRun(1000, func() { m.EventFlush(100, time.Millisecond, nil) }); n != 0 {
		t.Fatalf("%v allocations per flush", n)
	}
}

// prometheusAccept is the Accept header Prometheus sends when it scrapes.
const prometheusAccept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75," +
	"text/plain;version=0.0.4;q=0.5,*/*;q=0.1"

// A scraper whose Accept asks for OpenMetrics gets a valid OpenMetrics 1.0 exposition: counters'
// families named without _total, one family per name (the Go collector's clashing counter is left
// out). Without that Accept it gets Prometheus' text format, with the same families.
func TestOpenMetricsWhenAsked(t *testing.T) {
	m := metrics.New(clock.Real{}, quiet)
	m.Request("/v3/query", "POST", 200, 30*time.Millisecond)
	get := func(accept string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/metrics", nil)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		m.Handler().ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("Accept %q: %d %s", accept, rec.Code, rec.Body)
		}
		return rec
	}
	for _, accept := range []string{"application/openmetrics-text; version=1.0.0", prometheusAccept} {
		rec := get(accept)
		mt, params, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
		if err != nil || mt != "application/openmetrics-text" || params["version"] != "1.0.0" || params["charset"] != "utf-8" {
			t.Fatalf("Accept %q: Content-Type %q", accept, rec.Header().Get("Content-Type"))
		}
		om := metricstest.CheckOpenMetrics(t, rec.Body.String())
		for name, typ := range map[string]string{"mtk_http_requests": "counter", "mtk_http_request_duration_seconds": "histogram",
			"go_memstats_alloc_bytes": "gauge", "go_gc_heap_allocs_bytes": "counter", "process_cpu_seconds": "counter"} {
			if om.Types[name] != typ {
				t.Errorf("family %s is %q, want %s", name, om.Types[name], typ)
			}
		}
		if v, ok := om.Value("mtk_http_requests_total", "route", "/v3/query", "method", "POST", "status", "200"); !ok || v != 1 {
			t.Errorf("mtk_http_requests_total = %v (present %v), want 1", v, ok)
		}
	}
	for _, accept := range []string{"", "text/plain; version=0.0.4", "*/*"} {
		rec := get(accept)
		if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
			t.Fatalf("Accept %q: Content-Type %q", accept, ct)
		}
		f := metricstest.Parse(t, rec.Body)
		if _, ok := f.Value("go_gc_heap_allocs_bytes_total"); !ok || f["go_memstats_alloc_bytes_total"] != nil {
			t.Errorf("Accept %q: the text format serves other families than OpenMetrics", accept)
		}
	}
}
