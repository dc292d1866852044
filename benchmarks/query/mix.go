package main

import (
	"fmt"

	"mtk/benchmarks/internal/dashmix"
)

// query is one request of the dashboard mix.
type query = dashmix.Query

// mixName is the row of the whole mix: every client cycles through all the queries.
const mixName = "mix"

// workload is what a cell of the table sends: one query, or the whole mix.
type workload struct {
	Name    string
	Queries []int // indexes into the mix
}

func workloads(mix []query) []workload {
	var ws []workload
	all := make([]int, len(mix))
	for i, q := range mix {
		ws = append(ws, workload{Name: q.Name, Queries: []int{i}})
		all[i] = i
	}
	return append(ws, workload{Name: mixName, Queries: all})
}

// checkDates reports a mix that reaches before the data.
func checkDates(days int) error {
	if days < 90 {
		return fmt.Errorf("-days %d: the mix reads 90 days; generate at least 90", days)
	}
	return nil
}
