package main

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// print writes the markdown tables: the traffic view by utm_source (rows by reported's revenue,
// then the null row and the total; each cell revenue and orders), the ad view's totals, the
// query times against reported's, and the checks.
func (m *measured) print(w io.Writer) {
	fmt.Fprintf(w, "Traffic view by utm_source, last 30 days (%s): revenue (orders)\n\n", time.Now().UTC().Format(time.DateOnly))
	head := []string{"utm_source"}
	for _, c := range m.cols {
		head = append(head, c.String())
	}
	row(w, head...)
	row(w, slices.Repeat([]string{"---"}, len(head))...)
	reported := m.bySource[0].rows
	var sources []string
	for _, a := range m.bySource {
		for k := range a.rows {
			if k != "" && !slices.Contains(sources, k) {
				sources = append(sources, k)
			}
		}
	}
	slices.SortFunc(sources, func(a, b string) int { return cmp.Or(reported[b][0].Cmp(reported[a][0]), strings.Compare(a, b)) })
	for _, name := range append(sources, "") {
		label := name
		if name == "" {
			label = "(null)"
		}
		cells := []string{label}
		for _, a := range m.bySource {
			cells = append(cells, cell(a.rows[name]))
		}
		row(w, cells...)
	}
	cells := []string{"**total**"}
	for _, t := range m.traffic {
		cells = append(cells, "**"+cell(t)+"**")
	}
	row(w, cells...)

	fmt.Fprintf(w, "\nAd view by campaign: rows summed, total; traffic query db time (median) against reported's\n\n")
	row(w, "column", "ad view rows", "ad view total", "traffic db ms", "× reported")
	row(w, "---", "---", "---", "---", "---")
	for i, c := range m.cols {
		ratio := "-"
		if m.db[0] > 0 {
			ratio = fmt.Sprintf("%.2f", float64(m.db[i])/float64(m.db[0]))
		}
		row(w, c.String(), cell(m.adRows[i]), cell(m.adTotal[i]), fmt.Sprintf("%.2f", float64(m.db[i])/float64(time.Millisecond)), ratio)
	}
	fmt.Fprintln(w)
	if len(m.failures) == 0 {
		fmt.Fprintf(w, "Checks: every column's utm_source rows (null row included) add up to its traffic total, every "+
			"traffic total is reported's, every ad view's campaign rows add up to its total (%d columns).\n", len(m.cols))
		return
	}
	for _, f := range m.failures {
		fmt.Fprintln(w, "FAILED:", f)
	}
}

func cell(s sums) string {
	return s[0].StringFixed(2) + " (" + s[1].Round(4).String() + ")"
}

func row(w io.Writer, cells ...string) {
	fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
}
