package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// What a user adds up must match: over data shaped as sync writes it, the buckets of every
// granularity and the rows of every level sum to the answer without them, to the cent, and no
// span is lost (the month's hourly chart holds the month's spend).
func TestBucketsAndLevelsSumToTotals(t *testing.T) {
	ch := testenv.ClickHouse(t)
	cfg := diffConfig
	cfg.MissingRates = nil // money with a missing rate is null, in the total and in a bucket alike
	ds, err := enginetest.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ds.Write(ctx, ch.Conn); err != nil {
		t.Fatal(err)
	}
	fields := []string{"spend", "impressions", "clicks", "tx_revenue", "tx_count", "page_views"}
	for _, p := range ds.Projects {
		svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(p.SyncedAt)})
		first := p.Start.Format("2006-01-02")
		ranges := []string{
			`{"start":"` + first + `","end":"` + p.SyncedAt.In(p.Loc).Format("2006-01-02") + `"`,
			`{"start":"` + first + `T07:20:00","end":"` + p.SyncedAt.In(p.Loc).Format("2006-01-02T15:04:05") + `"`,
		}
		for _, rng := range ranges {
			for _, fs := range [][]string{fields, fields[3:]} {
				body := func(extra string) string {
					f, _ := json.Marshal(fs)
					return fmt.Sprintf(`{"project_id":%q,"fields":%s,"time":%s%s`, p.ID, f, rng, extra)
				}
				total := sumRows(t, query(t, svc, scopeOf(p), body("}}")), fs)
				for _, g := range engine.Granularities {
					res := query(t, svc, scopeOf(p), body(`,"granularity":"`+g+`"}}`))
					if got := sumRows(t, res, fs); got != total {
						t.Errorf("%s %s by %s: buckets sum to %s, total %s", p.ID, rng, g, got, total)
					}
				}
				for _, l := range engine.Levels {
					res := query(t, svc, scopeOf(p), body(`},"metadata":{"level":"`+l+`"}}`))
					if got := sumRows(t, res, fs); got != total {
						t.Errorf("%s %s at level %s: rows sum to %s, total %s", p.ID, rng, l, got, total)
					}
				}
			}
		}
	}
}

// sumRows adds up each field over the rows: money exactly, counts as integers; null (money
// that needs a missing exchange rate) when a row's is, as the total's is then.
func sumRows(t *testing.T, res *engine.Result, fields []string) string {
	t.Helper()
	if res.HasMore {
		t.Fatal("the answer has more rows than one page")
	}
	sums := make([]decimal.Decimal, len(fields))
	null := make([]bool, len(fields))
	for _, r := range res.Data {
		for i, f := range fields {
			switch v, _ := r.Get(f); x := v.(type) {
			case engine.Money:
				sums[i] = sums[i].Add(x.Decimal)
			case int64:
				sums[i] = sums[i].Add(decimal.NewFromInt(x))
			case nil:
				null[i] = true
			default:
				t.Fatalf("%s = %v (%T)", f, v, v)
			}
		}
	}
	out := make([]string, len(fields))
	for i := range fields {
		out[i] = sums[i].String()
		if null[i] {
			out[i] = "null"
		}
	}
	return fmt.Sprint(out)
}
