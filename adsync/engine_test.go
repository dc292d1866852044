package adsync_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/internal/adsim"
)

// TestEngineAnswersSyncedData queries synced data through engine.Service: totals equal the
// network's final numbers; an hourly chart of a day stored per day answers that day from the
// daily table, a five-minute chart of ad spend answers per hour (the hourly table), today's
// too (a sync's minute is not when the money was spent); and every granularity of the whole
// range holds the range's spend.
func TestEngineAnswersSyncedData(t *testing.T) {
	start := time.Date(2024, 6, 10, 18, 40, 0, 0, time.UTC)
	w := newWorld(t, start, 40)
	w.syncAll()
	w.clock.Advance(8 * time.Hour)
	w.syncAll()
	svc := engine.New(w.ch, engine.Options{Clock: w.clock})
	ctx := context.Background()
	for n, a := range w.accts {
		c := w.conns[n]
		p, err := w.store.Projects.Project(ctx, c.ProjectID)
		if err != nil {
			t.Fatal(err)
		}
		scope := engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.Timezone, SubHour: true, ConnectionIDs: []string{c.ID}}
		loc, _ := time.LoadLocation(a.TimeZone)
		day := func(d int) string { return w.clock.Now().In(loc).AddDate(0, 0, d).Format(time.DateOnly) }
		query := func(first, last, gran string) *engine.Result {
			t.Helper()
			in := engine.QueryInput{ProjectID: p.ID, Fields: []string{"spend"}, Time: &engine.TimeSpec{Start: first, End: last, Granularity: gran}}
			res, err := svc.Query(ctx, scope, in)
			if err != nil {
				t.Fatalf("%s %s..%s %s: %v", n, first, last, gran, err)
			}
			return res
		}
		truth, err := w.sim.Truth(adsim.TruthQuery{Network: n, Account: a.ID, Granularity: adsim.GranularityTotal, Since: day(-25), Until: day(-2)})
		if err != nil {
			t.Fatal(err)
		}
		res := query(day(-25), day(-2), "")
		got, _ := res.Data[0].Get("spend")
		if want := decimal.New(truth.Total.Spend, -2); !got.(engine.Money).Equal(want) {
			t.Fatalf("%s: total spend %v, true %v", n, got, want)
		}
		if res := query(day(-20), day(-20), "hour"); !warned(res, "daily") {
			t.Fatalf("%s: an hourly chart of a day stored per day did not fall back: %v", n, res.Warnings)
		}
		if res := query(day(-3), day(-3), "5min"); !warned(res, "hourly") {
			t.Fatalf("%s: a 5-minute chart of a day stored per hour did not fall back: %v", n, res.Warnings)
		}
		if res := query(day(0), day(0), "5min"); !warned(res, "hourly") {
			t.Fatalf("%s: today's ad spend should answer per hour: %v", n, res.Warnings)
		}
		total := spendOf(t, query(day(-25), day(0), ""))
		for _, g := range engine.Granularities {
			if got := spendOf(t, query(day(-25), day(0), g)); !got.Equal(total) {
				t.Fatalf("%s: by %s, spend %s; in total %s", n, g, got, total)
			}
		}
	}
}

// spendOf adds up the spend of an answer's rows.
func spendOf(t *testing.T, res *engine.Result) decimal.Decimal {
	t.Helper()
	var sum decimal.Decimal
	for _, r := range res.Data {
		v, _ := r.Get("spend")
		sum = sum.Add(v.(engine.Money).Decimal)
	}
	return sum
}

func warned(res *engine.Result, table string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, "answered from the "+table+" table") {
			return true
		}
	}
	return false
}
