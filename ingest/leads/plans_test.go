package leads

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Under GenericPlans, the statements that read leads look them up through indexes even when the
// plan is made on an empty, never analyzed table, the case where a cost-based choice goes wrong.
func TestGenericPlansUseIndexes(t *testing.T) {
	pool, _ := setup(t)
	ctx := context.Background()
	text := func(n int) string { return strings.TrimSuffix(strings.Repeat("'{x}', ", n), ", ") }
	statements := []struct{ name, sql, args string }{
		{"load", loadSQL, "'prj', '{a@x.com}', '{5511988887777}', '{}'"},
		{"merge", mergeSQL, "'prj', 'ld_1', 'ld_2', now()"},
		{"update", updateSQL, "'prj', now(), " + text(18) + ", '{true}'"},
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, GenericPlans); err != nil {
			return err
		}
		for _, s := range statements {
			if _, err := tx.Exec(ctx, "PREPARE "+s.name+" AS "+s.sql); err != nil {
				return err
			}
			rows, err := tx.Query(ctx, "EXPLAIN EXECUTE "+s.name+"("+s.args+")", pgx.QueryExecModeSimpleProtocol)
			if err != nil {
				return err
			}
			lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return err
			}
			plan := strings.Join(lines, "\n")
			if !strings.Contains(plan, "$1") {
				t.Errorf("%s: not a generic plan:\n%s", s.name, plan)
			}
			for _, bad := range []string{"Seq Scan", "Hash", "Merge Join"} {
				if strings.Contains(plan, bad) {
					t.Errorf("%s: the plan has a %s:\n%s", s.name, bad, plan)
				}
			}
			if !strings.Contains(plan, "Index") {
				t.Errorf("%s: the plan uses no index:\n%s", s.name, plan)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
