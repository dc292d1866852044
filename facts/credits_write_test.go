package facts_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"mtk/facts"
	"mtk/internal/testenv"
)

// creditJourneys are n orders of buyers as the credit worker passes them: 0 to 6 touches over
// the 40 days before, ads (a few, so that many orders' deltas share a rollup key) and e-mail or
// organic touches, repeated times, orders across a month's end.
func creditJourneys(r *rand.Rand, n int) []facts.OrderJourney {
	from := time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)
	var out []facts.OrderJourney
	for range n {
		at := from.Add(time.Duration(r.Int64N(20*86400)) * time.Second)
		j := facts.OrderJourney{Time: at, Currency: []string{"BRL", "USD"}[r.IntN(2)],
			Values: facts.Values{facts.TxRevenue: r.Int64N(1e9), facts.TxCount: 1, facts.TxCountTotal: 1, facts.TxCountRefunded: r.Int64N(2)}}
		for range r.IntN(7) {
			t := facts.Touch{Time: at.Add(-time.Duration(r.Int64N(40*86400)) * time.Second)}
			if r.IntN(3) > 0 {
				ad := fmt.Sprintf("a%d", r.IntN(3))
				t.Entity = facts.AdEntity{Source: "alpha_ads", ConnectionID: "con", AccountID: "act", CampaignID: "c", AdsetID: "s", AdID: ad}
				t.Dims = facts.TouchDims{UTMSource: "alpha_ads", UTMMedium: "cpc", UTMContent: ad}
			} else {
				t.Dims = facts.TouchDims{UTMSource: []string{"newsletter", "google"}[r.IntN(2)], ReferrerHost: "mail.example", Device: "mobile"}
			}
			if k := len(j.Touches); k > 0 && r.IntN(5) == 0 {
				t.Time = j.Touches[k-1].Time
			}
			j.Touches = append(j.Touches, t)
		}
		out = append(out, j)
	}
	return out
}

// TestCreditRollupsEqualRaw lands realistic credit batches (new journeys, and re-credits that
// negate an older one; two zones, one with a half-hour offset) and checks that for every window
// of 1 to 90 days, credits_hourly, credits_daily and credits_traffic_daily summed over
// window_days <= w equal credits_raw summed so, per model, touch set, date, time and the
// rollup's keys (credits_traffic_daily has no ad entity).
func TestCreditRollupsEqualRaw(t *testing.T) {
	ctx := context.Background()
	ch := testenv.ClickHouse(t)
	r := rand.New(rand.NewPCG(41, 14))
	zones := []string{"America/Sao_Paulo", "Asia/Kolkata"}
	for insert := range 3 {
		var batches []facts.CreditBatch
		for i, j := range creditJourneys(r, 150) {
			loc, _ := time.LoadLocation(zones[i%2])
			id := uint64(insert*1000 + i + 1)
			batches = append(batches, facts.CreditBatch{ProjectID: "prj_" + zones[i%2][:4], Zone: loc, OutboxID: id, Credits: facts.Credits(j)})
			if len(j.Touches) > 1 && i%3 == 0 {
				old := j
				old.Touches = j.Touches[1:]
				batches = append(batches, facts.CreditBatch{ProjectID: "prj_" + zones[i%2][:4], Zone: loc, OutboxID: id,
					Credits: facts.NegateCredits(facts.Credits(old))})
			}
		}
		if err := facts.InsertCredits(ctx, ch.Conn, batches); err != nil {
			t.Fatal(err)
		}
	}
	for _, rollup := range []struct {
		table, times string
	}{{"credits_hourly", "toString(hour), toString(day)"}, {"credits_daily", "toString(day)"},
		{"credits_traffic_daily", "toString(day)"}} {
		keys := rollupKeys(rollup.table)
		raw := creditSums(t, ch, "credits_raw", rollup.times, keys)
		rolled := creditSums(t, ch, rollup.table, rollup.times, keys)
		if len(raw) == 0 {
			t.Fatal("credits_raw holds no credit")
		}
		for w := 1; w <= facts.MaxWindowDays; w++ {
			want, got := map[string]facts.Values{}, map[string]facts.Values{}
			for _, sums := range []struct {
				from map[windowed]facts.Values
				to   map[string]facts.Values
			}{{raw, want}, {rolled, got}} {
				for k, v := range sums.from {
					if int(k.days) <= w {
						sums.to[k.key] = sums.to[k.key].Add(v)
					}
				}
			}
			maps.DeleteFunc(want, func(_ string, v facts.Values) bool { return v == facts.Values{} })
			maps.DeleteFunc(got, func(_ string, v facts.Values) bool { return v == facts.Values{} })
			if !maps.Equal(got, want) {
				t.Fatalf("%s, window %d: %d sums, want %d (credits_raw)", rollup.table, w, len(got), len(want))
			}
		}
	}
}

// windowed is a credit table's key with the window_days of its sums.
type windowed struct {
	key  string
	days uint8
}

// rollupKeys are the family's keys that the credit table holds, in the family's order.
func rollupKeys(table string) []string {
	var out []string
	for _, c := range facts.CreditsFamily.Table(table).Columns {
		if slices.Contains(facts.CreditsFamily.KeyColumns(), c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

// creditSums are a credit table's sums by key (model, touch set, date, times, the keys given)
// and window_days.
func creditSums(t *testing.T, ch testenv.CH, table, times string, keyColumns []string) map[windowed]facts.Values {
	t.Helper()
	keys := "project_id, model, touches, toString(by_click), " + times
	for _, k := range keyColumns {
		keys += ", toString(" + k + ")"
	}
	var sums []string
	for _, m := range facts.CreditsFamily.Measures {
		sums = append(sums, "toInt64(sum("+facts.Specs[m].Column+"))")
	}
	rows, err := ch.Conn.Query(context.Background(), "SELECT arrayStringConcat(["+keys+"], '|') AS k, window_days, ["+
		strings.Join(sums, ", ")+"] FROM "+table+" GROUP BY k, window_days")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[windowed]facts.Values{}
	for rows.Next() {
		var k windowed
		var v []int64
		if err := rows.Scan(&k.key, &k.days, &v); err != nil {
			t.Fatal(err)
		}
		var sum facts.Values
		for i, m := range facts.CreditsFamily.Measures {
			sum[m] = v[i]
		}
		out[k] = out[k].Add(sum)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
