package main

import (
	"fmt"
	"math"
	"time"
)

// printCapacity prints what one unit of each work costs the stores, then what one core of each
// store carries of it and which store gives out first.
func printCapacity(events, orders, dash, limited cost) {
	fmt.Println("\nPer unit of work (CPU: PostgreSQL's backends of this run's database; ClickHouse's and Redis's whole servers less what they spent for others around the phase):")
	fmt.Println()
	fmt.Println("| work | PG round trips | PG statements | PG backend CPU | CH statements | CH CPU | Redis commands | Redis CPU |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, r := range []struct {
		name string
		c    cost
	}{{"event (answered, then drained)", events}, {"order state (webhook call, then drained)", orders},
		{"dashboard query (cache off)", dash}, {"request with its rate limit in Redis", limited}} {
		c := r.c
		fmt.Printf("| %s (%.0f) | %.3g | %.3g | %s | %.3g | %s | %.3g | %s |\n", r.name, c.units, c.trips, c.statements,
			us(c.pgCPU), c.chStatements, us(c.chCPU), c.redisCalls, us(c.redisCPU))
	}
	perStatement := time.Duration(float64(dash.chCPU) / math.Max(dash.chStatements, 1e-9))
	fmt.Println("\nOne core of each store carries (1 s of CPU over the cost of one):")
	fmt.Println()
	fmt.Println("| store | work | CPU each | per core |")
	fmt.Println("|---|---|---|---|")
	rows := []struct {
		store, work string
		cpu         time.Duration
	}{
		{"PostgreSQL primary", "events/s (API and drain)", events.pgCPU},
		{"PostgreSQL primary", "order states/s (API and drain)", orders.pgCPU},
		{"ClickHouse shard", "dashboard statements/s (cache off)", perStatement},
		{"ClickHouse shard", "events/s drained in", events.chCPU},
		{"Redis (one thread: one core in all)", "rate-limited requests/s", limited.redisCPU},
	}
	for _, r := range rows {
		fmt.Printf("| %s | %s | %s | %s |\n", r.store, r.work, us(r.cpu), perCore(r.cpu))
	}
	fmt.Printf("\nFor events, per core: PostgreSQL %s, ClickHouse %s, Redis %s (one request each).\n",
		perCore(events.pgCPU), perCore(events.chCPU), perCore(limited.redisCPU))
	fmt.Printf("For dashboard statements (cache off), per core: ClickHouse %s, PostgreSQL %s, Redis %s.\n",
		perCore(perStatement), perCore(dash.pgCPU), perCore(limited.redisCPU))
}

// us is a CPU time in microseconds.
func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

// perCore is how many a second one core does at cpu each.
func perCore(cpu time.Duration) string {
	if cpu <= 0 {
		return "unmeasured (below the clock tick)"
	}
	return fmt.Sprintf("%.0f/s", float64(time.Second)/float64(cpu))
}
