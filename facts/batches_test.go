package facts_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"mtk/facts"
	"mtk/internal/testenv"
)

// TestBatchLandsOnce writes a batch's facts in two steps, as a recovery after a failure does:
// MissingBatchFacts names exactly the rows not yet stored (as a multiset: equal facts count
// twice; across months, i.e. partitions; in a zone with a 30-minute offset), another batch's
// rows never count, and the rollups fed by the landing tables hold every fact once.
func TestBatchLandsOnce(t *testing.T) {
	ctx := context.Background()
	ch := testenv.ClickHouse(t)
	loc, _ := time.LoadLocation("Asia/Kolkata")
	at := func(s string) time.Time {
		v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	fact := func(tm time.Time, ad string, spend int64) facts.Fact {
		return facts.Fact{ProjectID: "prj_b", Time: tm, AdEntity: facts.AdEntity{Source: "alpha_ads", ConnectionID: "con_b", AccountID: "act_1", CampaignID: "c1", AdsetID: "s1", AdID: ad}, Currency: "INR", Values: facts.Values{facts.Spend: spend, facts.Impressions: spend / 10}}
	}
	batches := map[facts.Landing][]facts.Fact{
		facts.LandingRaw: {fact(at("2024-01-31 23:50"), "a1", 1_000_000), fact(at("2024-02-01 00:10"), "a1", -300_000),
			fact(at("2024-02-01 00:10"), "a1", -300_000), fact(at("2024-02-01 00:10"), "a2", 70_000)},
		facts.LandingHourly: {fact(at("2024-01-31 23:00"), "a1", 5_000_000), fact(at("2024-02-01 00:00"), "a2", 2_000_000),
			fact(at("2024-02-01 00:00"), "a2", 2_000_000)},
		facts.LandingDaily: {fact(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC), "a1", 9_000_000),
			fact(time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC), "a2", -4_000_000)},
	}
	for l, fs := range batches {
		missing := func(batch string) []facts.Fact {
			t.Helper()
			got, err := facts.MissingBatchFacts(ctx, ch.Conn, l, loc, batch, fs)
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		if got := missing("b1"); !reflect.DeepEqual(got, fs) {
			t.Fatalf("%s: nothing stored, yet missing %v", l, got)
		}
		first := []facts.Fact{fs[0], fs[len(fs)-1]} // the last is one of two equal facts for raw and hourly
		if err := facts.InsertBatch(ctx, ch.Conn, l, loc, "b1", first); err != nil {
			t.Fatal(err)
		}
		rest := missing("b1")
		if want := fs[1 : len(fs)-1]; len(rest)+len(want) > 0 && !reflect.DeepEqual(rest, want) {
			t.Fatalf("%s: missing %v, want %v", l, rest, want)
		}
		if err := facts.InsertBatch(ctx, ch.Conn, l, loc, "b1", rest); err != nil {
			t.Fatal(err)
		}
		if got := missing("b1"); len(got) != 0 {
			t.Fatalf("%s: all stored, yet missing %v", l, got)
		}
		if got := missing("b2"); !reflect.DeepEqual(got, fs) {
			t.Fatalf("%s: another batch's rows counted: missing %v", l, got)
		}
	}
	sums := func(table string) map[string]int64 {
		t.Helper()
		rows, err := ch.Conn.Query(ctx, "SELECT toString(day), toInt64(sum(spend)) FROM "+table+" GROUP BY day")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]int64{}
		for rows.Next() {
			var d string
			var s int64
			if err := rows.Scan(&d, &s); err != nil {
				t.Fatal(err)
			}
			out[d] = s
		}
		return out
	}
	if got, want := sums("facts_hourly"), map[string]int64{"2024-01-31": 6_000_000, "2024-02-01": 3_470_000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("facts_hourly per day %v, want %v", got, want)
	}
	if got, want := sums("facts_daily"), map[string]int64{"2024-01-31": 15_000_000, "2024-02-01": -530_000}; !reflect.DeepEqual(got, want) {
		t.Fatalf("facts_daily per day %v, want %v", got, want)
	}
	var unbatched uint64
	if err := ch.Conn.QueryRow(ctx, "SELECT count() FROM facts_raw WHERE batch_id = ''").Scan(&unbatched); err != nil || unbatched != 0 {
		t.Fatalf("%d raw rows without the batch id: %v", unbatched, err)
	}
}
