package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// batchSizes cover one event up to the batcher's 1000-event batches.
var batchSizes = []float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000}

// flushBuckets go from a quiet flush's few milliseconds to the batcher's 10 s flush timeout.
var flushBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

type eventMetrics struct {
	batchSize prometheus.Histogram
	flushOK   prometheus.Observer
	flushErr  prometheus.Observer
	queueFull prometheus.Counter
}

func newEventMetrics(reg prometheus.Registerer) eventMetrics {
	size := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "mtk_events_batch_size",
		Help:    "Tracking events stored per batch (one flush).",
		Buckets: batchSizes,
	})
	flush := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "mtk_events_flush_duration_seconds",
		Help:    "Time to store one batch of tracking events (leads, raw events, outboxes), by outcome (ok, error).",
		Buckets: flushBuckets,
	}, []string{"outcome"})
	full := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "mtk_events_queue_full_total",
		Help: "Tracking events refused with 503 because the queue was full.",
	})
	reg.MustRegister(size, flush, full)
	return eventMetrics{batchSize: size, flushOK: flush.WithLabelValues("ok"), flushErr: flush.WithLabelValues("error"),
		queueFull: full}
}

// EventFlush records one stored (or failed) batch of events. It fits batcher.Config.Observe.
func (m *Metrics) EventFlush(size int, took time.Duration, err error) {
	m.events.batchSize.Observe(float64(size))
	if err != nil {
		m.events.flushErr.Observe(took.Seconds())
		return
	}
	m.events.flushOK.Observe(took.Seconds())
}

// EventRefused counts an event refused because the queue was full. It fits
// events.Config.QueueFull.
func (m *Metrics) EventRefused() { m.events.queueFull.Inc() }

// WatchEventQueue reports queued() (events.Service.Queued) as mtk_events_queue_length at each
// scrape.
func (m *Metrics) WatchEventQueue(queued func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mtk_events_queue_length",
		Help: "Tracking events waiting to be batched; beyond the queue's size (10,000) events are refused.",
	}, func() float64 { return float64(queued()) }))
}
