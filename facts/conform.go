package facts

import (
	"fmt"
	"maps"
	"slices"
)

// Want are the columns t, a table of f, must have (name to ClickHouse type): its Columns and
// one Int64 column per measure of f.
func (f *Family) Want(t *Table) map[string]string {
	out := map[string]string{}
	for _, c := range t.Columns {
		out[c.Name] = c.Type
	}
	for _, m := range f.Measures {
		out[Specs[m].Column] = "Int64"
	}
	return out
}

// Conform compares live columns (table or view name to column name to type, as system.columns
// lists them) with the families' descriptors: every table's columns, and every view's output
// (its target's columns). It names each table or view missing, and each column missing, extra or
// of another type, so that a measure added to Specs but not to a migration fails naming where.
func Conform(live map[string]map[string]string, families ...*Family) []string {
	var problems []string
	for _, f := range families {
		for i := range f.Tables {
			t := &f.Tables[i]
			want := f.Want(t)
			for _, name := range append([]string{t.Name}, t.Views...) {
				what := fmt.Sprintf("family %s: table %s", f.Name, name)
				if name != t.Name {
					what = fmt.Sprintf("family %s: view %s (into %s)", f.Name, name, t.Name)
				}
				got, ok := live[name]
				if !ok {
					problems = append(problems, what+": missing")
					continue
				}
				problems = append(problems, diffColumns(what, want, got)...)
			}
		}
	}
	return problems
}

// diffColumns names the columns of got that differ from want, in name order.
func diffColumns(what string, want, got map[string]string) []string {
	var out []string
	for _, c := range slices.Sorted(maps.Keys(want)) {
		switch typ, ok := got[c]; {
		case !ok:
			out = append(out, fmt.Sprintf("%s: missing column %s %s", what, c, want[c]))
		case typ != want[c]:
			out = append(out, fmt.Sprintf("%s: column %s is %s, want %s", what, c, typ, want[c]))
		}
	}
	for _, c := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[c]; !ok {
			out = append(out, fmt.Sprintf("%s: column %s %s is not in the descriptor", what, c, got[c]))
		}
	}
	return out
}
