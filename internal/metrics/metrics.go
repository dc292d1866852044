// Package metrics holds mtk's Prometheus metrics: one registry with the metric families of the
// HTTP layer, the query engine, event ingestion, the outboxes, the syncs and the store pools,
// and the handler that serves them. docs/operations.md's "Metrics" lists the families.
//
// The instrumented packages do not import Prometheus. They take small optional hooks (nil does
// nothing) that this package's methods fill: engine.Options.Observe (Query), batcher.Config.Observe
// (EventFlush), events.Config.QueueFull (EventRefused), conversions.Deliverer.Observe
// (ConversionsSettled), adsync.Syncer.Observe (SyncRun); the api package calls Request once per
// request with the route's pattern. Gauges of the store pools, the outbox backlogs and the
// event queue are read when Prometheus scrapes (Watch*), never polled.
package metrics

import (
	"log/slog"
	"net/http"
	"regexp"
	"slices"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"

	"mtk/internal/clock"
)

// Metrics is mtk's registry with its metric families. Its methods are safe for concurrent use.
type Metrics struct {
	reg   *prometheus.Registry
	clock clock.Clock
	log   *slog.Logger

	http    *httpMetrics
	query   queryMetrics
	events  eventMetrics
	outbox  outboxMetrics
	sync    syncMetrics
	credits creditMetrics

	limiter *prometheus.CounterVec
}

// New returns the metrics with every family registered, plus the Go runtime's and the
// process's. clk dates the outbox ages and the syncs' last success; log hears scrape errors.
func New(clk clock.Clock, log *slog.Logger) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), clock: clk, log: log}
	heapAllocs := collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/gc/heap/allocs:bytes$`)}
	m.reg.MustRegister(collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(heapAllocs)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.http = newHTTPMetrics(m.reg)
	m.query = newQueryMetrics(m.reg)
	m.events = newEventMetrics(m.reg)
	m.outbox = newOutboxMetrics(m.reg)
	m.sync = newSyncMetrics(m.reg)
	m.credits = newCreditMetrics(m.reg)
	m.limiter = newLimiterMetrics(m.reg)
	return m
}

// Handler serves the registry in Prometheus' text format, or in OpenMetrics 1.0 when the
// scraper's Accept asks for it. A collector that fails (a store down) is logged and left out;
// the other families are served.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Gatherer(), promhttp.HandlerOpts{
		ErrorLog:          slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	})
}

// clashing is the Go collector's counter whose OpenMetrics family name (a counter's name without
// _total) is that of its gauge go_memstats_alloc_bytes: two families of one name make an invalid
// exposition (client_golang issue 829). It is left out in every format, so that both say the same;
// go_gc_heap_allocs_bytes_total, registered in New, counts the same bytes.
const clashing = "go_memstats_alloc_bytes_total"

// Gatherer is the registry without the clashing family, for the handler and for tests and tools
// that read the families directly.
func (m *Metrics) Gatherer() prometheus.Gatherer {
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		fams, err := m.reg.Gather()
		return slices.DeleteFunc(fams, func(f *dto.MetricFamily) bool { return f.GetName() == clashing }), err
	})
}
