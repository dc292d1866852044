package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"mtk/engine"
)

// queryBuckets go from a rollup's few milliseconds to the engine's 10 s statement limit.
var queryBuckets = []float64{.0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

var queryTables = []string{"raw", "hourly", "daily"}

var queryErrorKinds = []string{
	engine.ErrorInvalid, engine.ErrorTooMuchData, engine.ErrorTimeout, engine.ErrorMemory,
	engine.ErrorUnavailable, engine.ErrorBusy, engine.ErrorCanceled, engine.ErrorInternal,
}

type queryMetrics struct {
	duration *prometheus.HistogramVec
	errors   *prometheus.CounterVec
}

func newQueryMetrics(reg prometheus.Registerer) queryMetrics {
	q := queryMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mtk_query_duration_seconds",
			Help: "Time to answer a metrics query, by the table that answered (raw, hourly, daily) and " +
				"whether it was a fallback from a finer table without data.",
			Buckets: queryBuckets,
		}, []string{"table", "fallback"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mtk_query_errors_total",
			Help: "Metrics queries that failed, by kind.",
		}, []string{"kind"}),
	}
	// Every possible series exists from the start, at 0, so that rates work from the first scrape.
	for _, t := range queryTables {
		q.duration.WithLabelValues(t, "false")
		if t != "raw" { // raw is the finest table: it is never a fallback
			q.duration.WithLabelValues(t, "true")
		}
	}
	for _, k := range queryErrorKinds {
		q.errors.WithLabelValues(k)
	}
	reg.MustRegister(q.duration, q.errors)
	return q
}

// Query records one engine.Service.Query call: the duration of an answered query, the kind of
// a failed one. It fits engine.Options.Observe.
func (m *Metrics) Query(o engine.Observation) {
	if o.ErrorKind != "" {
		m.query.errors.WithLabelValues(o.ErrorKind).Inc()
		return
	}
	fallback := "false"
	if o.Fallback {
		fallback = "true"
	}
	m.query.duration.WithLabelValues(o.Table, fallback).Observe(o.Took.Seconds())
}
