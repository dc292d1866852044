package metrics

import (
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Unmatched is the route label of a request that matches no route.
const Unmatched = "unmatched"

// httpBuckets suit an API that answers in milliseconds, up to its 60 s write timeout.
var httpBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60}

type httpKey struct {
	route, method string
	status        int
}

// httpSeries are one label set's counter and histogram, bound once.
type httpSeries struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

type httpMetrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec

	mu     sync.RWMutex
	series map[httpKey]httpSeries
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	labels := []string{"route", "method", "status"}
	h := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mtk_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "mtk_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern, method and status code.",
			Buckets: httpBuckets,
		}, labels),
		series: map[httpKey]httpSeries{},
	}
	reg.MustRegister(h.requests, h.duration)
	return h
}

// Request counts one answered request. route must be a route pattern, never a raw path, or ""
// (Unmatched) for a request that no route takes; route and method must not alias a request's
// buffers: they become map keys.
func (m *Metrics) Request(route, method string, status int, took time.Duration) {
	if route == "" {
		route = Unmatched
	}
	h := m.http
	k := httpKey{route: route, method: method, status: status}
	h.mu.RLock()
	s, ok := h.series[k]
	h.mu.RUnlock()
	if !ok {
		s = h.bind(k)
	}
	s.requests.Inc()
	s.duration.Observe(took.Seconds())
}

// bind makes (once) the series of a label set, so that later requests skip the vectors' hashing.
func (h *httpMetrics) bind(k httpKey) httpSeries {
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.series[k]; ok {
		return s
	}
	status := strconv.Itoa(k.status)
	s := httpSeries{
		requests: h.requests.WithLabelValues(k.route, k.method, status),
		duration: h.duration.WithLabelValues(k.route, k.method, status),
	}
	h.series[k] = s
	return s
}
