package facts

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

var creditOrderTime = time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC)

func ad(id string) AdEntity { return AdEntity{Source: "alpha_ads", ConnectionID: "con", AdID: id} }

// creditAt sums o's credit rows of model and date that windows of w days hold, per entity.
func creditAt(cs []Credit, model string, byClick bool, w int) map[AdEntity]Values {
	out := map[AdEntity]Values{}
	for _, c := range cs {
		if c.Model == model && c.ByClick == byClick && int(c.WindowDays) <= w {
			v := out[c.Entity]
			for i := range v {
				v[i] += c.Values[i]
			}
			out[c.Entity] = v
		}
	}
	for e, v := range out {
		if v == (Values{}) {
			delete(out, e)
		}
	}
	return out
}

// TestCreditsByHand checks each model's revenue shares on journeys worked out by hand.
func TestCreditsByHand(t *testing.T) {
	h := time.Hour
	three := []Touch{
		{Time: creditOrderTime.Add(-20 * 24 * h), Entity: ad("a")}, // enters at 20 days
		{Time: creditOrderTime.Add(-7 * 24 * h), Entity: ad("b")},  // exactly 7 days: enters at 7
		{Time: creditOrderTime.Add(-2 * h), Entity: ad("c")},       // enters at 1
	}
	o := OrderJourney{Time: creditOrderTime, Currency: "BRL", Values: Values{TxRevenue: 100_000_000, TxCount: 1, TxCountTotal: 1}, Touches: three}
	for _, c := range []struct {
		model string
		w     int
		want  map[string]int64 // revenue by ad id ("" unattributed)
	}{
		{ModelLastClick, 1, map[string]int64{"c": 100_000_000}},
		{ModelLastClick, 90, map[string]int64{"c": 100_000_000}},
		{ModelFirstClick, 6, map[string]int64{"c": 100_000_000}},
		{ModelFirstClick, 7, map[string]int64{"b": 100_000_000}},
		{ModelFirstClick, 28, map[string]int64{"a": 100_000_000}},
		{ModelLinear, 7, map[string]int64{"b": 50_000_000, "c": 50_000_000}},
		{ModelLinear, 28, map[string]int64{"a": 33_333_333, "b": 33_333_333, "c": 33_333_334}},
		{ModelPositionBased, 1, map[string]int64{"c": 100_000_000}},
		{ModelPositionBased, 7, map[string]int64{"b": 50_000_000, "c": 50_000_000}},
		{ModelPositionBased, 28, map[string]int64{"a": 40_000_000, "b": 20_000_000, "c": 40_000_000}},
		// Weights 2^-(20d-2h)/7d, 2^-1 and 2^-(2h/7d) of the three touches.
		{ModelTimeDecay, 7, decayShares(100_000_000, []float64{7 * 24, 2}, []string{"b", "c"})},
	} {
		got := creditAt(Credits(o), c.model, false, c.w)
		if len(got) != len(c.want) {
			t.Errorf("%s w=%d: credits %v, want %v", c.model, c.w, got, c.want)
			continue
		}
		for id, rev := range c.want {
			if got[ad(id)][TxRevenue] != rev {
				t.Errorf("%s w=%d: %s has %v, want revenue %d", c.model, c.w, id, got[ad(id)], rev)
			}
		}
	}
	// Touches after the order and older than 90 days never count; without a touch the order is
	// unattributed under every window.
	late := OrderJourney{Time: creditOrderTime, Currency: "BRL", Values: Values{TxRevenue: 5, TxCount: 1, TxCountTotal: 1}, Touches: []Touch{
		{Time: creditOrderTime.Add(time.Minute), Entity: ad("after")},
		{Time: creditOrderTime.Add(-91 * 24 * h), Entity: ad("old")},
	}}
	for _, w := range []int{1, 90} {
		if got := creditAt(Credits(late), ModelLinear, false, w); len(got) != 1 || got[AdEntity{}] != (Values{TxRevenue: 5, TxCount: 10_000, TxCountTotal: 10_000}) {
			t.Errorf("w=%d: %v, want all unattributed", w, got)
		}
	}
}

func decayShares(v int64, agesHours []float64, ids []string) map[string]int64 {
	var total float64
	for _, a := range agesHours {
		total += math.Exp2(-a / (7 * 24))
	}
	out := map[string]int64{}
	var before int64
	cum := 0.0
	for i, a := range agesHours {
		cum += math.Exp2(-a / (7 * 24))
		upTo := int64(math.Floor(float64(v) * cum / total))
		out[ids[i]] = upTo - before
		before = upTo
	}
	return out
}

// TestCreditsAgainstDirectAllocation checks random journeys against an independent computation:
// for every model, date and window, the in-window touches allocated directly with exact
// rationals, and conservation (credits plus unattributed equal the order's values) to the unit.
func TestCreditsAgainstDirectAllocation(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	for n := range 300 {
		o := OrderJourney{Time: creditOrderTime, Currency: "USD",
			Values: Values{TxRevenue: r.Int64N(1e12), TxCount: 1, TxCountTotal: 1,
				TxCountPending: r.Int64N(2), TxCountRefunded: r.Int64N(2), TxProductCosts: r.Int64N(1e9)}}
		for range r.IntN(7) {
			o.Touches = append(o.Touches, Touch{Time: creditOrderTime.Add(-time.Duration(r.Int64N(100*24*3600)) * time.Second),
				Entity: ad(string(rune('a' + r.IntN(4))))})
		}
		cs := Credits(o)
		for _, model := range CreditModels {
			for _, byClick := range []bool{false, true} {
				for w := 1; w <= MaxWindowDays; w++ {
					got := creditAt(cs, model, byClick, w)
					want := directCredits(o, model, w)
					var sum Values
					for e, v := range got {
						for i := range v {
							sum[i] += v[i]
						}
						if want[e] != v {
							t.Fatalf("journey %d %s click=%v w=%d: %v has %v, want %v", n, model, byClick, w, e, v, want[e])
						}
					}
					if len(got) != len(want) {
						t.Fatalf("journey %d %s w=%d: %v, want %v", n, model, w, got, want)
					}
					for i := range sum {
						if full := o.Values[i] * map[bool]int64{true: CountUnit, false: 1}[!Specs[i].Money]; sum[i] != full {
							t.Fatalf("journey %d %s w=%d: measure %d sums to %d, want %d", n, model, w, i, sum[i], full)
						}
					}
				}
			}
		}
	}
}

// directCredits is o's credit under model and window w, computed from the touches inside the
// window with big rationals (time_decay's weights as Credits rounds them).
func directCredits(o OrderJourney, model string, w int) map[AdEntity]Values {
	held, _ := windowTouches(o)
	var in []Touch
	for _, t := range held {
		if o.Time.Sub(t.Time) <= time.Duration(w)*24*time.Hour {
			in = append(in, t)
		}
	}
	out := map[AdEntity]Values{}
	add := func(e AdEntity, m Measure, v int64) {
		x := out[e]
		x[m] += v
		out[e] = x
	}
	for _, m := range CreditsFamily.Measures {
		v := o.Values[m]
		if !Specs[m].Money {
			v *= CountUnit
		}
		if len(in) == 0 {
			add(AdEntity{}, m, v)
			continue
		}
		ws := make([]*big.Rat, len(in))
		total := new(big.Rat)
		for i := range in {
			switch {
			case model == ModelLinear:
				ws[i] = big.NewRat(1, 1)
			case model == ModelLastClick:
				ws[i] = big.NewRat(int64(b2i(i == len(in)-1)), 1)
			case model == ModelFirstClick:
				ws[i] = big.NewRat(int64(b2i(i == 0)), 1)
			case model == ModelPositionBased && len(in) <= 2:
				ws[i] = big.NewRat(1, int64(len(in)))
			case model == ModelPositionBased && (i == 0 || i == len(in)-1):
				ws[i] = big.NewRat(2, 5)
			case model == ModelPositionBased:
				ws[i] = big.NewRat(1, 5*int64(len(in)-2))
			default:
				ws[i] = new(big.Rat).SetUint64(weights(ModelTimeDecay, o.Time, in[i:i+1])[0])
			}
			total.Add(total, ws[i])
		}
		cum := new(big.Rat)
		var before int64
		for i, t := range in {
			cum.Add(cum, ws[i])
			share := new(big.Rat).Mul(big.NewRat(v, 1), new(big.Rat).Quo(cum, total))
			upTo := new(big.Int).Quo(share.Num(), share.Denom()).Int64() // v >= 0: truncation is floor
			add(t.Entity, m, upTo-before)
			before = upTo
		}
	}
	for e, x := range out {
		if x == (Values{}) {
			delete(out, e)
		}
	}
	return out
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
