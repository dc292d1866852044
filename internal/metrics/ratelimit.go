package metrics

import "github.com/prometheus/client_golang/prometheus"

// RateLimitFailed counts one request (limit "requests") or sign-in attempt (limit "passwords")
// let through unchecked because the rate limiter's store (Redis) failed.
func (m *Metrics) RateLimitFailed(limit string) { m.limiter.WithLabelValues(limit).Inc() }

func newLimiterMetrics(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mtk_ratelimit_unavailable_total",
		Help: "Requests (limit=requests) and sign-in attempts (limit=passwords) let through unchecked because the rate limiter failed.",
	}, []string{"limit"})
	reg.MustRegister(c)
	return c
}
