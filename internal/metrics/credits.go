package metrics

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"mtk/ingest/credits"
	"mtk/internal/clock"
)

type creditMetrics struct {
	orders   prometheus.Counter
	rowsRead prometheus.Counter
	batch    prometheus.Histogram
}

func newCreditMetrics(reg prometheus.Registerer) creditMetrics {
	c := creditMetrics{
		orders: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mtk_credits_orders_total",
			Help: "Orders credited again by the credit worker (credit_outbox rows queued).",
		}),
		rowsRead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mtk_credits_journey_rows_read_total",
			Help: "journeys_by_lead rows (grouped) the credit worker read.",
		}),
		batch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "mtk_credits_batch_seconds",
			Help:    "Duration of the credit worker's batches (up to 500 marks each).",
			Buckets: flushBuckets,
		}),
	}
	reg.MustRegister(c.orders, c.rowsRead, c.batch)
	return c
}

// CreditBatch measures one batch of the credit worker. It fits credits.Worker.Observe.
func (m *Metrics) CreditBatch(st credits.Stats) {
	m.credits.orders.Add(float64(st.Orders))
	m.credits.rowsRead.Add(float64(st.RowsRead))
	m.credits.batch.Observe(st.Took.Seconds())
}

// WatchCredits reports the credits' backlog, read from PostgreSQL at each scrape.
func (m *Metrics) WatchCredits(pool *pgxpool.Pool) {
	m.reg.MustRegister(&creditCollector{pool: pool, clock: m.clock})
}

var (
	creditPending = prometheus.NewDesc("mtk_credits_pending",
		"Credit work waiting: leads and lead-less orders marked for the credit worker (marks), credit_outbox rows "+
			"not yet in ClickHouse (outbox).", []string{"queue"}, nil)
	creditAge = prometheus.NewDesc("mtk_credits_outbox_oldest_pending_age_seconds",
		"Age of the oldest credit_outbox row; 0 when none waits.", nil, nil)
)

// creditCollector reads credits.Backlogs when scraped.
type creditCollector struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func (c *creditCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- creditPending
	ch <- creditAge
}

func (c *creditCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), outboxScrapeTimeout)
	defer cancel()
	b, err := credits.Backlogs(ctx, c.pool)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(creditPending, err)
		return
	}
	age := 0.0
	if !b.Oldest.IsZero() {
		age = max(c.clock.Now().Sub(b.Oldest).Seconds(), 0)
	}
	ch <- prometheus.MustNewConstMetric(creditPending, prometheus.GaugeValue, float64(b.Marks), "marks")
	ch <- prometheus.MustNewConstMetric(creditPending, prometheus.GaugeValue, float64(b.Outbox), "outbox")
	ch <- prometheus.MustNewConstMetric(creditAge, prometheus.GaugeValue, age)
}
