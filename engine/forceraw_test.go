package engine_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
)

// TestForceRawAnswersTheSame checks the benchmark's hook: a query planned on facts_raw reads the
// raw table and gives the same rows as the rollup the engine chose.
func TestForceRawAnswersTheSame(t *testing.T) {
	_, ds, ch := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	for _, body := range []string{
		`{"project_id":"prj_1","fields":["spend","clicks","ctr"],"time":{"start":"2024-03-08","end":"2024-03-11","granularity":"day"},"metadata":{"level":"campaign"}}`,
		`{"project_id":"prj_1","fields":["spend","impressions"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"hour"}}`,
		`{"project_id":"prj_1","fields":["spend","cpc"],"time":{"start":"2024-03-08","end":"2024-03-11","granularity":"month"},"metadata":{"level":"ad"},"filters":[{"member":"ad_name","operator":"contains","values":["video"]}]}`,
		`{"project_id":"prj_1","fields":["spend","roas"],"time":{"start":"2024-03-08","end":"2024-03-11"},"metadata":{"convert_to_currency":"BRL"}}`,
	} {
		in := mustInput(t, body)
		rollup, err := engine.Compile(scope, in, testNow)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := engine.Compile(scope, in, testNow, engine.ForceRaw())
		if err != nil {
			t.Fatal(err)
		}
		if rollup.Attempts[0].Table == "facts_raw" || raw.Attempts[0].Table != "facts_raw" ||
			!strings.Contains(raw.Attempts[0].Query.SQL, "FROM facts_raw ") {
			t.Fatalf("%s: tables %s and %s", body, rollup.Attempts[0].Table, raw.Attempts[0].Table)
		}
		want, got := dump(t, ch.Conn, rollup.Attempts[0].Query), dump(t, ch.Conn, raw.Attempts[0].Query)
		if got != want || want == "" {
			t.Fatalf("%s: raw answers\n%s\nthe rollup\n%s", body, got, want)
		}
	}
}

// dump runs a statement and prints its rows, one a line, without has_facts (which only a
// statement with a probe has).
func dump(t *testing.T, conn driver.Conn, st engine.Statement) string {
	t.Helper()
	rows, err := conn.Query(context.Background(), st.SQL, st.Args...)
	if err != nil {
		t.Fatalf("%s: %v", st.SQL, err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		dests := make([]any, len(rows.ColumnTypes()))
		for i, c := range rows.ColumnTypes() {
			dests[i] = reflect.New(c.ScanType()).Interface()
		}
		if err := rows.Scan(dests...); err != nil {
			t.Fatal(err)
		}
		for i, d := range dests {
			// has_facts and span_days say how the answer was read, not what it is.
			if c := rows.Columns()[i]; c != "has_facts" && c != "span_days" {
				fmt.Fprint(&b, reflect.ValueOf(d).Elem().Interface(), " ")
			}
		}
		b.WriteString("\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
