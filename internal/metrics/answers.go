package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"mtk/answers"
)

// WatchAnswers exposes the answer cache's counts (package answers), read at each scrape.
func (m *Metrics) WatchAnswers(stats func() answers.Stats) {
	m.reg.MustRegister(&answersCollector{stats: stats})
}

var (
	answerHits      = desc("mtk_query_cache_hits_total", "Metrics queries answered from the answer cache.")
	answerMisses    = desc("mtk_query_cache_misses_total", "Metrics queries the answer cache could not answer (read from ClickHouse).")
	answerEvictions = desc("mtk_query_cache_evictions_total", "Answers dropped from the answer cache to keep it within MTK_QUERY_CACHE_MB.")
	answerBytes     = desc("mtk_query_cache_bytes", "Bytes held by the answer cache, overheads included.")
	answerEntries   = desc("mtk_query_cache_entries", "Answers held by the answer cache.")
)

type answersCollector struct{ stats func() answers.Stats }

func (c *answersCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{answerHits, answerMisses, answerEvictions, answerBytes, answerEntries} {
		ch <- d
	}
}

func (c *answersCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	ch <- prometheus.MustNewConstMetric(answerHits, prometheus.CounterValue, float64(s.Hits))
	ch <- prometheus.MustNewConstMetric(answerMisses, prometheus.CounterValue, float64(s.Misses))
	ch <- prometheus.MustNewConstMetric(answerEvictions, prometheus.CounterValue, float64(s.Evictions))
	ch <- prometheus.MustNewConstMetric(answerBytes, prometheus.GaugeValue, float64(s.Bytes))
	ch <- prometheus.MustNewConstMetric(answerEntries, prometheus.GaugeValue, float64(s.Entries))
}
