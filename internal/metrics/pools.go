package metrics

import (
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// WatchPools reports the connection pools of both stores, read at each scrape.
func (m *Metrics) WatchPools(pg *pgxpool.Pool, ch driver.Conn) {
	m.reg.MustRegister(&poolCollector{pg: pg, ch: ch})
}

func desc(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, nil, nil) }

var (
	chOpen  = desc("mtk_clickhouse_open_connections", "ClickHouse connections open: in use or idle.")
	chInUse = desc("mtk_clickhouse_in_use_connections", "ClickHouse connections in use.")
	chIdle  = desc("mtk_clickhouse_idle_connections", "ClickHouse connections idle in the pool.")
	chMax   = desc("mtk_clickhouse_max_open_connections", "Most ClickHouse connections in use at once (MaxOpenConns).")

	pgOpen     = desc("mtk_postgres_open_connections", "PostgreSQL connections open: in use, idle or being opened.")
	pgAcquired = desc("mtk_postgres_in_use_connections", "PostgreSQL connections in use (acquired from the pool).")
	pgIdle     = desc("mtk_postgres_idle_connections", "PostgreSQL connections idle in the pool.")
	pgMax      = desc("mtk_postgres_max_open_connections", "Most PostgreSQL connections the pool opens.")
	pgAcquires = desc("mtk_postgres_acquires_total", "Connections acquired from the PostgreSQL pool.")
	pgWaits    = desc("mtk_postgres_acquire_waits_total",
		"Acquires from the PostgreSQL pool that had to wait for a connection (none was idle).")
	pgWaited = desc("mtk_postgres_acquire_wait_seconds_total",
		"Time spent waiting for a PostgreSQL connection by acquires that found none idle.")
)

// poolCollector reads clickhouse-go's Conn.Stats and pgxpool's Stat when scraped.
type poolCollector struct {
	pg *pgxpool.Pool
	ch driver.Conn
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{chOpen, chInUse, chIdle, chMax, pgOpen, pgAcquired, pgIdle, pgMax, pgAcquires, pgWaits, pgWaited} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	g := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
	n := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
	}
	cs := c.ch.Stats() // its Open counts the connections in use; Idle those waiting in the pool
	g(chOpen, float64(cs.Open+cs.Idle))
	g(chInUse, float64(cs.Open))
	g(chIdle, float64(cs.Idle))
	g(chMax, float64(cs.MaxOpenConns))
	ps := c.pg.Stat()
	g(pgOpen, float64(ps.TotalConns()))
	g(pgAcquired, float64(ps.AcquiredConns()))
	g(pgIdle, float64(ps.IdleConns()))
	g(pgMax, float64(ps.MaxConns()))
	n(pgAcquires, float64(ps.AcquireCount()))
	n(pgWaits, float64(ps.EmptyAcquireCount()))
	n(pgWaited, ps.EmptyAcquireWaitTime().Seconds())
}
