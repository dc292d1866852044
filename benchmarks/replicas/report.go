package main

import (
	"fmt"
	"runtime"
	"time"

	"mtk/internal/loadgen"
)

// printTables prints the API and drain rows, with each row's ratio to the first.
func printTables(api []apiRow, drains []drainRow) {
	if len(api) > 0 {
		fmt.Printf("\nAPI tier on %d cores: the replicas, HAProxy, the stores and the load generator share them, so more\n", runtime.NumCPU())
		fmt.Println("replicas add hops and processes here, not capacity; the ratios are to the first row, of this run;")
		fmt.Println("each cell is the best of its rounds.")
		fmt.Println()
		fmt.Println("| setup | events/s | events p50 / p99 | failed | dashboard req/s, cache off (p50) | ClickHouse SELECTs per request, cache off | dashboard req/s, cache on (p50) |")
		fmt.Println("|---|---|---|---|---|---|---|")
		first := api[0]
		for _, r := range api {
			fmt.Printf("| %s | %.0f (%.2f×) | %s / %s | %d | %s | %.2f | %s |\n", r.label(), r.events.Rate(), r.events.Rate()/first.events.Rate(),
				ms(r.events.Quantile(0.5)), ms(r.events.Quantile(0.99)), r.events.Failed(),
				dash(r.dashOff, first.dashOff), r.selects, dash(r.dashOn, first.dashOn))
		}
	}
	if len(drains) > 0 {
		fmt.Println()
		fmt.Println("| drain partitions (worker processes) | backlog | drained in (from the workers' start) | events/s | workers ready after |")
		fmt.Println("|---|---|---|---|---|")
		first := drains[0]
		for _, r := range drains {
			fmt.Printf("| %d | %d | %s | %.0f (%.2f×) | %s |\n", r.partitions, r.backlog, r.drained.Round(10*time.Millisecond),
				r.rate(), r.rate()/first.rate(), r.ready.Round(10*time.Millisecond))
		}
	}
}

// dash is a dashboard cell: its rate, ratio to first's, median latency and errors.
func dash(s, first loadgen.Summary) string {
	out := fmt.Sprintf("%.0f (%.2f×, %.1f ms)", s.RPS, s.RPS/first.RPS, s.P50)
	if n := s.Requests - s.Answers; n > 0 {
		out += fmt.Sprintf(", %d errors", n)
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond)) }
