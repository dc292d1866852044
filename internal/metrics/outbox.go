package metrics

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"mtk/ingest/conversions"
	"mtk/internal/clock"
)

// outboxScrapeTimeout bounds the backlog query of one scrape.
const outboxScrapeTimeout = time.Second

type outboxMetrics struct {
	factsApplied   prometheus.Counter
	conversionSent prometheus.Counter
	conversionDead prometheus.Counter
}

func newOutboxMetrics(reg prometheus.Registerer) outboxMetrics {
	o := outboxMetrics{
		factsApplied: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mtk_outbox_facts_applied_total",
			Help: "Fact outbox rows written to ClickHouse.",
		}),
		conversionSent: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mtk_outbox_conversions_sent_total",
			Help: "Conversions delivered to the network's conversions API.",
		}),
		conversionDead: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mtk_outbox_conversions_dead_total",
			Help: "Conversions the deliverer gave up on (refused by the API, too old, out of attempts); " +
				"not those refused when queued. See `mtk outbox list --status dead`.",
		}),
	}
	reg.MustRegister(o.factsApplied, o.conversionSent, o.conversionDead)
	return o
}

// FactsApplied counts fact outbox rows written to ClickHouse (outbox.Drainer.RunOnce's count).
func (m *Metrics) FactsApplied(n int) { m.outbox.factsApplied.Add(float64(n)) }

// ConversionsSettled counts conversions sent and gone dead. It fits conversions.Deliverer.Observe.
func (m *Metrics) ConversionsSettled(sent, dead int) {
	m.outbox.conversionSent.Add(float64(sent))
	m.outbox.conversionDead.Add(float64(dead))
}

// WatchOutboxes reports the fact, conversion and journey outboxes' backlogs, read from PostgreSQL at each scrape.
func (m *Metrics) WatchOutboxes(pool *pgxpool.Pool) {
	m.reg.MustRegister(&backlogCollector{pool: pool, clock: m.clock})
}

var (
	backlogPending = prometheus.NewDesc("mtk_outbox_pending",
		"Outbox items waiting: fact rows not yet in ClickHouse (facts), conversions not yet sent nor dead (conversions), "+
			"journey rows not yet in ClickHouse (journeys).",
		[]string{"outbox"}, nil)
	backlogAge = prometheus.NewDesc("mtk_outbox_oldest_pending_age_seconds",
		"Age of the oldest waiting outbox item; 0 when none waits.",
		[]string{"outbox"}, nil)
)

// backlogCollector reads conversions.Backlogs when scraped.
type backlogCollector struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

func (c *backlogCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- backlogPending
	ch <- backlogAge
}

func (c *backlogCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), outboxScrapeTimeout)
	defer cancel()
	facts, convs, journeys, err := conversions.Backlogs(ctx, c.pool)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(backlogPending, err)
		return
	}
	now := c.clock.Now()
	for _, b := range []struct {
		name string
		b    conversions.Backlog
	}{{"facts", facts}, {"conversions", convs}, {"journeys", journeys}} {
		age := 0.0
		if !b.b.Oldest.IsZero() {
			age = max(now.Sub(b.b.Oldest).Seconds(), 0)
		}
		ch <- prometheus.MustNewConstMetric(backlogPending, prometheus.GaugeValue, float64(b.b.Pending), b.name)
		ch <- prometheus.MustNewConstMetric(backlogAge, prometheus.GaugeValue, age, b.name)
	}
}
