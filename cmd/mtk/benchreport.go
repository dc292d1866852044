package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"mtk/internal/loadgen"
)

// printBench prints the report: as JSON with --json, else a table per cell.
func printBench(out io.Writer, f benchFlags, r loadgen.Report) error {
	if f.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	for i, c := range r.Cells {
		if i > 0 {
			fmt.Fprintln(out)
		}
		if err := printCell(out, c); err != nil {
			return err
		}
	}
	return nil
}

// benchColumns heads the table of a cell.
const benchColumns = "query\trequests\treq/s\tp50 ms\tp90 ms\tp99 ms\tmax ms\tdb p50 ms\ttotal p50 ms\tcache hits\terrors"

// printCell prints a cell's table: a row per query and one for the mix.
func printCell(out io.Writer, c loadgen.Cell) error {
	fmt.Fprintf(out, "%s (%gs)\n", c.Key(), c.Window)
	if c.Mode == loadgen.ModeRate {
		fmt.Fprintf(out, "sent at %.1f req/s of %g asked; %d waited for a free slot; longest wait to be sent %.1f ms\n",
			c.Achieved, c.Level, c.Queued, c.MaxLag)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, benchColumns+"\t")
	for _, s := range append(slices.Clone(c.Queries), c.Mix) {
		fmt.Fprintf(tw, "%s\t%d\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\t%.0f%%\t%s\t\n", s.Name, s.Requests, s.RPS,
			s.P50, s.P90, s.P99, s.Max, s.DB, s.Total, 100*s.CacheHits, errorList(s.Errors))
	}
	return tw.Flush()
}

// errorList writes errors by status and code, "-" for none.
func errorList(errs map[string]int) string {
	if len(errs) == 0 {
		return "-"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, errs[k]))
	}
	return strings.Join(parts, ", ")
}
