package engine_test

import (
	"context"
	"math/rand"
	"testing"

	"mtk/engine"
)

// TestLeanAnswersAsQuery checks Attempt.Lean over the differential test's data (three zones,
// money in three currencies, rates a provider left out, ad facts as sync leaves them): where no
// row of the lean statement lists a currency without its rate, its rows are Query's, value for
// value and in order; and both cases occur, so that the service's fallback to Query is
// exercised too (the differential test checks the service's answers against the reference).
func TestLeanAnswersAsQuery(t *testing.T) {
	_, ds, ch := seeded(t, diffConfig)
	r := rand.New(rand.NewSource(diffSeed))
	answered, voided := 0, 0
	for i := 0; i < diffQueries && !t.Failed(); i++ {
		p := pick(r, ds.Projects)
		q := randomQuery(r, ds, p, p.SyncedAt)
		compiled, err := engine.Compile(q.scope, q.in, p.SyncedAt)
		if err != nil {
			t.Fatal(err)
		}
		a := compiled.Attempts[0]
		if a.Lean == nil {
			continue
		}
		var n uint64
		if err := ch.Conn.QueryRow(context.Background(), "SELECT count() FROM ("+a.Lean.SQL+") WHERE notEmpty(fx_missing)",
			a.Lean.Args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			voided++
			continue
		}
		answered++
		if lean, full := dump(t, ch.Conn, *a.Lean), dump(t, ch.Conn, a.Query); lean != full {
			t.Fatalf("query %d %+v: the lean statement answers\n%s\nQuery\n%s", i, q.in, lean, full)
		}
	}
	if answered == 0 || voided == 0 {
		t.Fatalf("lean statements answered %d queries and were voided by a missing rate in %d: want both", answered, voided)
	}
	t.Logf("lean statements answered %d queries; a missing rate voided %d", answered, voided)
}
