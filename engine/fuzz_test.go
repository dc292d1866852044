package engine_test

import (
	"fmt"
	"testing"

	"mtk/engine"
)

// FuzzCompile checks that no input string reaches the SQL text: compiling with the fuzzed
// project id, connection id, currency and filter values gives exactly the SQL of compiling with
// fixed stand-ins (only a value's emptiness may matter), so every such string travels as an
// argument.
func FuzzCompile(f *testing.F) {
	for _, s := range []string{"prj_1", "' OR 1=1 --", `\'`, "{name:String}", "?", "%_\\", "ção", "", "a\x00b", "EUR", "`x`"} {
		f.Add(s, s, s, s, "USD", uint8(0), uint8(2))
	}
	f.Add("p", "c", "1.5", "-2e3", "BRL", uint8(7), uint8(5))
	f.Fuzz(func(t *testing.T, project, conn, v1, v2, currency string, op, member uint8) {
		ops := engine.Operators
		fl, _ := engine.Fields("")
		members := []string{}
		for _, d := range fl.Dimensions {
			members = append(members, d.Name)
		}
		for _, m := range fl.Metrics {
			members = append(members, m.Name)
		}
		build := func(project, conn, v1, v2, currency string) (string, error) {
			scope := testScope
			scope.ProjectID = project
			scope.ConnectionIDs = []string{conn}
			in := engine.QueryInput{ProjectID: project, Fields: []string{"spend", "ctr"}, ConnectionIDs: []string{conn},
				Time:     &engine.TimeSpec{Start: "2024-03-01", End: "2024-03-02T10:00:00", Granularity: "hour"},
				Filters:  []engine.Filter{{Member: members[int(member)%len(members)], Operator: ops[int(op)%len(ops)], Values: []string{v1, v2}}},
				Metadata: &engine.Metadata{Level: "campaign", ConvertToCurrency: currency}}
			c, err := engine.Compile(scope, in, testNow)
			if err != nil {
				return "", err
			}
			var sql string
			for _, a := range c.Attempts {
				sql += a.Query.SQL + "\n"
				if a.Probe != nil {
					sql += a.Probe.SQL + "\n"
				}
			}
			return sql, nil
		}
		got, err := build(project, conn, v1, v2, currency)
		if err != nil {
			return // refused by validation: nothing reaches SQL
		}
		standIn := func(v string) string {
			if v == "" {
				return ""
			}
			if _, ok := numberLike(v); ok {
				return "1"
			}
			return "x"
		}
		want, err := build("prj", "con", standIn(v1), standIn(v2), "EUR")
		if err != nil {
			t.Fatalf("stand-ins refused: %v", err)
		}
		if got != want {
			t.Fatalf("SQL depends on input strings %q:\n%s\nvs\n%s", fmt.Sprint(project, conn, v1, v2, currency), got, want)
		}
	})
}

func numberLike(v string) (float64, bool) {
	var f float64
	_, err := fmt.Sscan(v, &f)
	return f, err == nil
}
