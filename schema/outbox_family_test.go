package schema_test

import (
	"context"
	"testing"

	"mtk/facts"
	"mtk/internal/testenv"
)

// The PostgreSQL outboxes carry every measure of the families they feed, as bigint columns, so
// that a measure added to facts.Specs without its PostgreSQL migration fails here, naming the
// outbox and the column: fact_outbox holds the business measures of events, orders and order lines
// (facts.Business and BusinessFamily), journey_outbox those of JourneysFamily.
func TestOutboxesCarryTheFamiliesMeasures(t *testing.T) {
	pg := testenv.Postgres(t) // migrated from the template
	outboxes := map[string][][]facts.Measure{
		"fact_outbox":    {facts.Business, facts.BusinessFamily.Measures},
		"journey_outbox": {facts.JourneysFamily.Measures},
	}
	for table, lists := range outboxes {
		rows, err := pg.Pool.Query(context.Background(), `SELECT column_name, data_type FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = $1`, table)
		if err != nil {
			t.Fatal(err)
		}
		live := map[string]string{}
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				t.Fatal(err)
			}
			live[name] = typ
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(live) == 0 {
			t.Fatalf("%s: no such table", table)
		}
		for _, ms := range lists {
			for _, col := range facts.ColumnNames(ms) {
				if typ, ok := live[col]; !ok {
					t.Errorf("%s: missing column %s bigint", table, col)
				} else if typ != "bigint" {
					t.Errorf("%s: column %s is %s, want bigint", table, col, typ)
				}
			}
		}
	}
}
