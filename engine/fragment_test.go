package engine

import (
	"fmt"
	"testing"
)

// TestFragments: a fragment argument takes its placeholder's place with its own arguments, so
// arguments follow the text whatever order the pieces were built in; a ? inside a string literal
// is text; a count that does not match panics.
func TestFragments(t *testing.T) {
	where := join(" AND ", expr("project_id = ?", "prj_1"), expr("day >= toDate(?)", "2024-03-01"))
	inner := expr("SELECT sum(x) AS x FROM t WHERE ? GROUP BY day", where)
	outer := expr("SELECT x FROM (?) WHERE x > ? AND label != '?' LIMIT ?", inner, 1.5, 10).statement()
	want := "SELECT x FROM (SELECT sum(x) AS x FROM t WHERE project_id = ? AND day >= toDate(?) GROUP BY day) " +
		"WHERE x > ? AND label != '?' LIMIT ?"
	if outer.SQL != want {
		t.Fatalf("sql\n got %s\nwant %s", outer.SQL, want)
	}
	if got := fmt.Sprint(outer.Args); got != "[prj_1 2024-03-01 1.5 10]" {
		t.Fatalf("args %s", got)
	}
	if got, err := Bind(outer); err != nil || got != "SELECT x FROM (SELECT sum(x) AS x FROM t WHERE project_id = "+
		"'prj_1' AND day >= toDate('2024-03-01') GROUP BY day) WHERE x > cast(1.5, 'Float64') AND label != '?' LIMIT 10" {
		t.Fatalf("bound %q, %v", got, err)
	}
	if f := join(", ", expr("a"), expr(`b = 'it\'s ?'`), expr("c = ?", 3)).statement(); f.SQL != `a, b = 'it\'s ?', c = ?` || len(f.Args) != 1 {
		t.Fatalf("join %+v", f)
	}
	later, earlier := expr("b = ?", 2), expr("a = ?", 1)
	if got := expr("? AND ?", earlier, later).statement(); fmt.Sprint(got.Args) != "[1 2]" {
		t.Fatalf("pieces built out of order: %+v", got)
	}
	for _, bad := range []func(){
		func() { expr("a = ? AND b = ?", 1).statement() },
		func() { expr("a = ?", 1, 2).statement() },
		func() { expr("x ?", expr("a = ?", expr("b"), 2)).statement() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Error("a placeholder count that does not match did not panic")
				}
			}()
			bad()
		}()
	}
}
