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

// WatchSharedAnswers exposes the shared answer tier's counts (answers.Shared), read at each
// scrape.
func (m *Metrics) WatchSharedAnswers(stats func() answers.SharedStats) {
	m.reg.MustRegister(&sharedCollector{stats: stats})
}

var (
	sharedHits   = desc("mtk_answers_shared_hits_total", "Metrics queries answered from the answers the replicas share in Redis.")
	sharedMisses = desc("mtk_answers_shared_misses_total", "Shared-tier lookups that found no answer (this replica read it).")
	sharedWaits  = desc("mtk_answers_shared_waits_total", "Shared-tier lookups that waited for the answer another replica was reading.")
	sharedErrors = desc("mtk_answers_shared_errors_total", "Exchanges with the shared tier's Redis that failed (the tier is then skipped a while).")
)

type sharedCollector struct{ stats func() answers.SharedStats }

func (c *sharedCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sharedHits, sharedMisses, sharedWaits, sharedErrors} {
		ch <- d
	}
}

func (c *sharedCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	for d, v := range map[*prometheus.Desc]int64{sharedHits: s.Hits, sharedMisses: s.Misses, sharedWaits: s.Waits, sharedErrors: s.Errors} {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v))
	}
}
