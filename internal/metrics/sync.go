package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"mtk/adsync"
	"mtk/platform"
)

// syncBuckets go from an incremental run's tenth of a second to a long backfill's minutes.
var syncBuckets = []float64{.1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600}

type syncMetrics struct {
	duration    *prometheus.HistogramVec
	rows        *prometheus.CounterVec
	failures    *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec
}

func newSyncMetrics(reg prometheus.Registerer) syncMetrics {
	labels := []string{"connection_id", "network"}
	s := syncMetrics{
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mtk_sync_run_duration_seconds",
			Help:    "Duration of sync runs (successful or not), per connection.",
			Buckets: syncBuckets,
		}, labels),
		rows: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mtk_sync_rows_written_total",
			Help: "Rows sync runs wrote to ClickHouse (entity versions and fact differences), per connection.",
		}, labels),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mtk_sync_failures_total",
			Help: "Sync runs that ended in error, per connection.",
		}, labels),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "mtk_sync_last_success_timestamp_seconds",
			Help: "When the latest successful sync run of the connection ended (Unix time), as seen by this process.",
		}, labels),
	}
	reg.MustRegister(s.duration, s.rows, s.failures, s.lastSuccess)
	return s
}

// SyncRun records one recorded sync run. It fits adsync.Syncer.Observe.
func (m *Metrics) SyncRun(c platform.Connection, res adsync.Result, err error) {
	s := &m.sync
	s.duration.WithLabelValues(c.ID, c.Kind).Observe(res.Took.Seconds())
	s.rows.WithLabelValues(c.ID, c.Kind).Add(float64(res.Rows))
	failures := s.failures.WithLabelValues(c.ID, c.Kind) // exists at 0 from the first run on
	if err != nil {
		failures.Inc()
		return
	}
	s.lastSuccess.WithLabelValues(c.ID, c.Kind).Set(float64(m.clock.Now().Unix()))
}
