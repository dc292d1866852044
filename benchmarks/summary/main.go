// Command summary is the last step of `make bench`: it prints issue 41's table, each figure the
// earlier steps recorded (benchmarks/internal/figures) beside the "before" figure and
// its target. It measures nothing; a figure no step recorded reads "not measured".
//
//	go run ./benchmarks/summary
package main

import (
	"fmt"
	"log"
	"os"
	"sort"
	"strings"

	"mtk/benchmarks/internal/figures"
)

// row is one line of the table: the figure recorded under name, printed with format.
type row struct {
	label, name, format, before, target string
}

// fixed are the rows whose figures each come from one step, in the order; the floor
// run's rows (one pair per dashboard query it measured) come first.
var fixed = []row{
	{"server CPU per cache hit, HTTP, 4 connections (query -hits)", "hits.http_cpu_us", "%.1f µs", "52–86 µs", "≤ 30 µs"},
	{"ClickHouse statements per request, 3 replicas ÷ 1, shared answers off (replicas -shared)", "replicas.shared_off_x", "%.2f×", "3–7×", "–"},
	{"the same, shared answers on", "replicas.shared_on_x", "%.2f×", "no shared tier", "1×"},
	{"PostgreSQL round trips per order state (ingest)", "ingest.order_round_trips", "%.2f", "11.5", "≤ 4"},
	{"credit rows landed per second, ClickHouse 18.16 (credits)", "credits.rows_per_s", "%.0f", "≈ 30,800 (478 k rows in 15.5 s through the views, 13× slower than without)", "≥ 5× before"},
}

// Floor rows: floor.<query>.ratio and floor.<query>.statements, recorded by query -floor.
const (
	floorPrefix     = "floor."
	ratioSuffix     = ".ratio"
	statementSuffix = ".statements"
)

// statementsBefore is the statements per answer: the hourly series paid the day-spans
// check as a second statement.
var statementsBefore = map[string]string{"today_hourly": "2"}

func main() {
	log.SetFlags(0)
	all, err := figures.Load()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("\nissue 41, before and now (figures from %s)\n\n", figures.Path())
	fmt.Println("| figure | before (issue 41) | now | target | recorded |")
	fmt.Println("|---|--:|--:|--:|---|")
	for _, r := range append(floorRows(all), fixed...) {
		now, at := "not measured", ""
		if f, ok := all[r.name]; ok {
			now, at = fmt.Sprintf(r.format, f.Value), f.At.Format("2006-01-02 15:04")
		}
		fmt.Printf("| %s | %s | %s | %s | %s |\n", r.label, r.before, now, r.target, at)
	}
	if len(all) == 0 {
		os.Exit(1)
	}
}

// floorRows are two rows per dashboard query the floor run measured: its p50 over mtk ÷ the p50
// of its own SQL straight to ClickHouse's HTTP interface, and its statements per answer.
func floorRows(all map[string]figures.Figure) []row {
	var queries []string
	for name := range all {
		if q, ok := strings.CutPrefix(name, floorPrefix); ok && strings.HasSuffix(q, ratioSuffix) {
			queries = append(queries, strings.TrimSuffix(q, ratioSuffix))
		}
	}
	sort.Strings(queries)
	var rows []row
	for _, q := range queries {
		before := statementsBefore[q]
		if before == "" {
			before = "1"
		}
		rows = append(rows,
			row{q + ": p50 ÷ its own SQL straight to ClickHouse, 1 client (query -floor)", floorPrefix + q + ratioSuffix, "%.2f×", "1.48× (the four queries' p50s)", "≤ 1.15×"},
			row{q + ": ClickHouse statements per answer", floorPrefix + q + statementSuffix, "%.0f", before, "1"})
	}
	return rows
}
