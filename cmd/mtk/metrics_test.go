package main

import (
	"net/http"
	"testing"

	"mtk/internal/metrics/metricstest"
)

// scrape GETs a /metrics URL.
func scrape(t *testing.T, url string) (int, metricstest.Families) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return resp.StatusCode, nil
	}
	return 200, metricstest.Parse(t, resp.Body)
}

// `mtk serve` serves /metrics on its listener by default, on a listener of its own when
// MTK_METRICS names one, with the families that the stores, the outboxes and the event queue
// feed.
func TestServeMetrics(t *testing.T) {
	useTestStores(t)
	t.Setenv("MTK_METRICS", "on")
	base := serve(t)
	status, f := scrape(t, base+"/metrics")
	if status != 200 {
		t.Fatalf("GET /metrics: %d", status)
	}
	for _, name := range []string{"mtk_postgres_open_connections", "mtk_clickhouse_open_connections", "mtk_outbox_pending",
		"mtk_events_queue_length", "mtk_query_errors_total"} {
		if _, ok := f.Value(name); !ok {
			t.Errorf("%s is missing", name)
		}
	}
	if v, _ := f.Value("mtk_http_requests_total", "route", "/healthz", "status", "200"); v < 1 {
		t.Errorf("the start-up probe of /healthz is not counted")
	}

	own := freeAddr(t)
	t.Setenv("MTK_METRICS", own)
	base = serve(t)
	if status, _ := scrape(t, base+"/metrics"); status != 404 {
		t.Fatalf("GET /metrics on the API's listener with MTK_METRICS=%s: %d", own, status)
	}
	if status, f = scrape(t, "http://"+own+"/metrics"); status != 200 {
		t.Fatalf("GET /metrics on %s: %d", own, status)
	}
	if _, ok := f.Value("mtk_outbox_pending", "outbox", "facts"); !ok {
		t.Error("mtk_outbox_pending is missing on the metrics listener")
	}
}
