package api_test

import (
	"log/slog"
	"mime"
	"net/http/httptest"
	"strings"
	"testing"

	"mtk/internal/metrics"
	"mtk/internal/metrics/metricstest"
)

// withMetrics rebuilds e's app with metrics wired as `mtk serve` wires them.
func (e *env) withMetrics() *metrics.Metrics {
	e.t.Helper()
	log := slog.New(slog.NewJSONHandler(e.logs, nil))
	m := metrics.New(e.clock, log)
	m.WatchPools(e.store.Pool(), e.ch)
	m.WatchOutboxes(e.store.Pool())
	e.rebuildWith(m)
	return m
}

// GET /metrics answers without credentials, with every family, after a query, an event and
// refused requests, labelled by route pattern and never by raw path.
func TestMetricsByRoutePattern(t *testing.T) {
	e := newEnv(t)
	e.withMetrics()
	tt := e.newTrackingTenant("acme", "act_100", "acme.example")
	e.heard()
	for range 2 { // read, then from the answer cache
		if r := e.do("POST", "/v3/query", map[string]any{"project_id": tt.project.ID, "fields": []string{"spend"}}, bearer(tt.readKey)...); r.Status != 200 {
			t.Fatalf("query: %d %s", r.Status, r.Body)
		}
	}
	if r := e.do("POST", "/v3/tracking/events", map[string]any{"config": map[string]any{"name": "Lead"}}, bearer(tt.key)...); r.Status != 200 {
		t.Fatalf("event: %d %s", r.Status, r.Body)
	}
	wantError(t, e.do("GET", "/v3/connections/con_nope/sync", nil, bearer(tt.readKey)...), 404, "not_found_error", "resource_not_found")
	// Refused by /v3's middleware before the route ran: still named after the route.
	wantError(t, e.do("GET", "/v3/connections/con_nope/sync", nil, bearer("mtk_live_nope")...), 401, "authentication_error", "invalid_api_key")
	e.do("GET", "/no/such/route", nil)
	e.do("DELETE", "/v3/query", nil, bearer(tt.readKey)...)

	r := e.do("GET", "/metrics", nil)
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	f := metricstest.Parse(t, strings.NewReader(string(r.Body)))
	sync := "/v3/connections/:connection_id/sync"
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"mtk_http_requests_total", []string{"route", "/v3/query", "method", "POST", "status", "200"}, 2},
		{"mtk_http_request_duration_seconds", []string{"route", "/v3/query", "method", "POST", "status", "200"}, 2},
		{"mtk_query_cache_hits_total", nil, 1},
		{"mtk_query_cache_misses_total", nil, 1},
		{"mtk_query_cache_evictions_total", nil, 0},
		{"mtk_query_cache_entries", nil, 1},
		{"mtk_http_requests_total", []string{"route", "/v3/tracking/events", "method", "POST", "status", "200"}, 1},
		{"mtk_http_requests_total", []string{"route", sync, "method", "GET", "status", "404"}, 1},
		{"mtk_http_requests_total", []string{"route", sync, "method", "GET", "status", "401"}, 1},
		{"mtk_http_requests_total", []string{"route", "unmatched", "method", "GET", "status", "404"}, 1},
		{"mtk_http_requests_total", []string{"route", "unmatched", "method", "DELETE", "status", "405"}, 1},
		{"mtk_query_duration_seconds", []string{"table", "daily", "fallback", "false"}, 1},
		{"mtk_events_batch_size", nil, 1},
		{"mtk_events_flush_duration_seconds", []string{"outcome", "ok"}, 1},
		{"mtk_events_queue_length", nil, 0},
		{"mtk_outbox_pending", []string{"outbox", "facts"}, 1}, // the Lead's business row, not drained
		{"mtk_outbox_pending", []string{"outbox", "conversions"}, 0},
		{"mtk_outbox_pending", []string{"outbox", "journeys"}, 0}, // the Lead has no lead nor UTM: no touch
	} {
		if got, ok := f.Value(c.name, c.labels...); !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	for _, route := range f.LabelValues("mtk_http_requests_total", "route") {
		if strings.Contains(route, "nope") || strings.Contains(route, "no/such") {
			t.Errorf("raw path %q as a route label", route)
		}
	}
	for _, name := range []string{"mtk_postgres_open_connections", "mtk_clickhouse_open_connections", "mtk_query_errors_total", "mtk_query_cache_bytes"} {
		if _, ok := f.Value(name); !ok {
			t.Errorf("%s is missing", name)
		}
	}
}

// With a listener of its own for /metrics, the API does not serve it, and still counts requests.
func TestMetricsOnTheirOwnListener(t *testing.T) {
	e := newEnv(t)
	e.cfg.MetricsAddr = "127.0.0.1:9464"
	m := e.withMetrics()
	if r := e.do("GET", "/metrics", nil); r.Status != 404 {
		t.Fatalf("GET /metrics on the API: %d", r.Status)
	}
	e.do("GET", "/healthz", nil)
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	f := metricstest.Parse(t, rec.Body)
	for _, labels := range [][]string{{"route", "/healthz", "status", "200"}, {"route", "unmatched", "status", "404"}} {
		if v, ok := f.Value("mtk_http_requests_total", labels...); v != 1 {
			t.Errorf("mtk_http_requests_total%v = %v (present %v), want 1", labels, v, ok)
		}
	}
}

// GET /metrics answers OpenMetrics 1.0 to a scraper whose Accept asks for it, every family of
// `mtk serve` included (pools and outboxes), as the document says.
func TestMetricsInOpenMetrics(t *testing.T) {
	e := newEnv(t)
	e.withMetrics()
	e.do("GET", "/healthz", nil)
	r := e.do("GET", "/metrics", nil, "Accept", "application/openmetrics-text; version=1.0.0")
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if r.Status != 200 || err != nil || mt != "application/openmetrics-text" || params["version"] != "1.0.0" || params["charset"] != "utf-8" {
		t.Fatalf("%d, Content-Type %q", r.Status, r.Header.Get("Content-Type"))
	}
	om := metricstest.CheckOpenMetrics(t, string(r.Body))
	if om.Types["mtk_http_requests"] != "counter" || om.Types["mtk_outbox_pending"] != "gauge" || om.Types["mtk_postgres_acquire_waits"] != "counter" {
		t.Fatalf("families %v", om.Types)
	}
	if v, ok := om.Value("mtk_http_requests_total", "route", "/healthz", "status", "200"); !ok || v != 1 {
		t.Fatalf("mtk_http_requests_total{route=/healthz} = %v (present %v), want 1", v, ok)
	}
}
