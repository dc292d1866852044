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

// printBench prints the report: as JSON with --json, else a table per cell, then the comparison
// with --compare.
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
	if f.earlier != nil {
		return printComparison(out, r, *f.earlier)
	}
	return nil
}

// readReport reads an earlier run's --json output.
func readReport(name string) (*loadgen.Report, error) {
	b, err := readRegular("--compare", name, maxCompareFile)
	if err != nil {
		return nil, err
	}
	r := new(loadgen.Report)
	if err := json.Unmarshal(b, r); err != nil || len(r.Cells) == 0 {
		return nil, fmt.Errorf("--compare %s: not the --json output of mtk bench", name)
	}
	return r, nil
}

// figure is a column of a cell's table: a figure of a summary, and its format.
type figure struct {
	name   string
	format string
	value  func(loadgen.Summary) float64
}

// figures are the columns of a cell's table, each compared by --compare.
var figures = []figure{
	{"requests", "%.0f", func(s loadgen.Summary) float64 { return float64(s.Requests) }},
	{"req/s", "%.1f", func(s loadgen.Summary) float64 { return s.RPS }},
	{"p50 ms", "%.1f", func(s loadgen.Summary) float64 { return s.P50 }},
	{"p90 ms", "%.1f", func(s loadgen.Summary) float64 { return s.P90 }},
	{"p99 ms", "%.1f", func(s loadgen.Summary) float64 { return s.P99 }},
	{"max ms", "%.1f", func(s loadgen.Summary) float64 { return s.Max }},
	{"db p50 ms", "%.1f", func(s loadgen.Summary) float64 { return s.DB }},
	{"total p50 ms", "%.1f", func(s loadgen.Summary) float64 { return s.Total }},
	{"cache hits %", "%.0f", func(s loadgen.Summary) float64 { return 100 * s.CacheHits }},
}

// printCell prints a cell's table: a row per query and one for the mix.
func printCell(out io.Writer, c loadgen.Cell) error {
	fmt.Fprintf(out, "%s (%gs)\n", c.Key(), c.Window)
	if c.Mode == loadgen.ModeRate {
		fmt.Fprintf(out, "sent at %.1f req/s of %g asked; %d waited for a free slot; longest wait to be sent %.1f ms\n",
			c.Achieved, c.Level, c.Queued, c.MaxLag)
	}
	return printTable(out, c, "errors", func(s loadgen.Summary, f figure) string { return fmt.Sprintf(f.format, f.value(s)) },
		func(s loadgen.Summary) string { return errorList(s.Errors) })
}

// printTable prints a row per query of c and one for the mix: each figure's cell, then last.
func printTable(out io.Writer, c loadgen.Cell, lastName string, cell func(loadgen.Summary, figure) string, last func(loadgen.Summary) string) error {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "query\t")
	for _, f := range figures {
		fmt.Fprint(tw, f.name+"\t")
	}
	fmt.Fprintln(tw, lastName+"\t")
	for _, s := range append(slices.Clone(c.Queries), c.Mix) {
		fmt.Fprint(tw, s.Name+"\t")
		for _, f := range figures {
			fmt.Fprint(tw, cell(s, f)+"\t")
		}
		fmt.Fprintln(tw, last(s)+"\t")
	}
	return tw.Flush()
}

// printComparison prints, for each cell of r that earlier has too, each figure's ratio to the
// earlier one (×1.00 unchanged, "-" when the earlier figure is 0), and the error counts then and
// now.
func printComparison(out io.Writer, r, earlier loadgen.Report) error {
	before := map[string]loadgen.Cell{}
	for _, c := range earlier.Cells {
		before[c.Key()] = c
	}
	fmt.Fprintln(out, "\nCompared with the earlier run (ratio now / then):")
	for _, c := range r.Cells {
		old, ok := before[c.Key()]
		if !ok {
			fmt.Fprintf(out, "\n%s: not in the earlier run\n", c.Key())
			continue
		}
		then := map[string]loadgen.Summary{old.Mix.Name: old.Mix}
		for _, s := range old.Queries {
			then[s.Name] = s
		}
		fmt.Fprintf(out, "\n%s\n", c.Key())
		err := printTable(out, c, "errors then → now", func(s loadgen.Summary, f figure) string {
			prev, ok := then[s.Name]
			if !ok || f.value(prev) == 0 {
				return "-"
			}
			return fmt.Sprintf("×%.2f", f.value(s)/f.value(prev))
		}, func(s loadgen.Summary) string {
			return errorList(then[s.Name].Errors) + " → " + errorList(s.Errors)
		})
		if err != nil {
			return err
		}
	}
	return nil
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
