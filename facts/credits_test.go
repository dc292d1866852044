package facts

import (
	"maps"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"time"
)

var creditOrderTime = time.Date(2026, 3, 10, 15, 30, 0, 0, time.UTC)

func ad(id string) AdEntity { return AdEntity{Source: "alpha_ads", ConnectionID: "con", AdID: id} }

// credited is what a credit is given to: a touch's entity and dimensions (both zero: the
// unattributed part).
type credited struct {
	Entity AdEntity
	Dims   TouchDims
}

// to is the key of an ad touch's credit.
func to(e AdEntity) credited { return credited{Entity: e} }

// creditAt sums o's credit rows of the touch set, model and date that windows of w days hold,
// per entity and dimensions.
func creditAt(cs []Credit, set, model string, byClick bool, w int) map[credited]Values {
	out := map[credited]Values{}
	for _, c := range cs {
		if c.Touches == set && c.Model == model && c.ByClick == byClick && int(c.WindowDays) <= w {
			k := credited{c.Entity, c.Dims}
			v := out[k]
			for i := range v {
				v[i] += c.Values[i]
			}
			out[k] = v
		}
	}
	for k, v := range out {
		if v == (Values{}) {
			delete(out, k)
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
		got := creditAt(Credits(o), TouchesAds, c.model, false, c.w)
		if len(got) != len(c.want) {
			t.Errorf("%s w=%d: credits %v, want %v", c.model, c.w, got, c.want)
			continue
		}
		for id, rev := range c.want {
			if got[to(ad(id))][TxRevenue] != rev {
				t.Errorf("%s w=%d: %s has %v, want revenue %d", c.model, c.w, id, got[to(ad(id))], rev)
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
		if got := creditAt(Credits(late), TouchesAds, ModelLinear, false, w); len(got) != 1 || got[credited{}] != (Values{TxRevenue: 5, TxCount: CountUnit, TxCountTotal: CountUnit}) {
			t.Errorf("w=%d: %v, want all unattributed", w, got)
		}
	}
}

// TestCreditsByTouchSet credits an e-mail touch (no ad entity) then an ad touch then the order:
// "ads" credits the ad alone, "all" both, each share carrying its touch's dimensions.
func TestCreditsByTouchSet(t *testing.T) {
	email := Touch{Time: creditOrderTime.Add(-3 * 24 * time.Hour), Dims: TouchDims{UTMSource: "newsletter", UTMMedium: "email"}}
	paid := Touch{Time: creditOrderTime.Add(-time.Hour), Entity: ad("x"),
		Dims: TouchDims{UTMSource: "alpha_ads", UTMMedium: "cpc", UTMCampaign: "spring", Device: "mobile"}}
	o := OrderJourney{Time: creditOrderTime, Currency: "BRL", Values: Values{TxRevenue: 100_000_001, TxCount: 1, TxCountTotal: 1},
		Touches: []Touch{paid, email}}
	cs := Credits(o)
	half := Values{TxRevenue: 50_000_000, TxCount: CountUnit / 2, TxCountTotal: CountUnit / 2}
	rest := Values{TxRevenue: 50_000_001, TxCount: CountUnit / 2, TxCountTotal: CountUnit / 2}
	all := Values{TxRevenue: 100_000_001, TxCount: CountUnit, TxCountTotal: CountUnit}
	for _, c := range []struct {
		set, model string
		w          int
		want       map[credited]Values
	}{
		{TouchesAds, ModelLastClick, 7, map[credited]Values{{paid.Entity, paid.Dims}: all}},
		{TouchesAds, ModelLinear, 7, map[credited]Values{{paid.Entity, paid.Dims}: all}},
		{TouchesAll, ModelLastClick, 7, map[credited]Values{{paid.Entity, paid.Dims}: all}},
		{TouchesAll, ModelFirstClick, 7, map[credited]Values{{Dims: email.Dims}: all}},
		{TouchesAll, ModelLinear, 7, map[credited]Values{{Dims: email.Dims}: half, {paid.Entity, paid.Dims}: rest}},
		// The e-mail enters the 3-day window: before it, the ad takes all.
		{TouchesAll, ModelLinear, 2, map[credited]Values{{paid.Entity, paid.Dims}: all}},
		{TouchesAll, ModelFirstClick, 3, map[credited]Values{{Dims: email.Dims}: all}},
	} {
		for _, byClick := range []bool{false, true} {
			if got := creditAt(cs, c.set, c.model, byClick, c.w); !maps.Equal(got, c.want) {
				t.Errorf("%s %s w=%d click=%v: %v, want %v", c.set, c.model, c.w, byClick, got, c.want)
			}
		}
	}
	// On the click date, each share is on its touch's time; the unattributed part (none here
	// under w >= 1, since the ad is an hour old) would be on the order's.
	for _, c := range cs {
		want := creditOrderTime
		if c.ByClick {
			want = map[bool]time.Time{true: paid.Time, false: email.Time}[c.Entity == paid.Entity]
		}
		if !c.Time.Equal(want) {
			t.Fatalf("%+v: at %v, want %v", c, c.Time, want)
		}
		if c.Touches == TouchesAds && c.Entity != paid.Entity {
			t.Fatalf("%+v: credited to a touch that is no ad under %q", c, TouchesAds)
		}
	}
	// Without a touch in the window, the unattributed part has no entity and no dimensions.
	late := o
	late.Touches = []Touch{email}
	for _, set := range TouchSets {
		want := map[credited]Values{{}: all}
		if got := creditAt(Credits(late), set, ModelLinear, false, 2); !maps.Equal(got, want) {
			t.Errorf("%s w=2: %v, want %v", set, got, want)
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
// for every touch set, model, date and window, the set's in-window touches allocated directly
// with exact rationals, and conservation (credits plus unattributed equal the order's values) to
// the unit. Touches are ads, e-mails (no entity) and both, on repeated times.
func TestCreditsAgainstDirectAllocation(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 1))
	for n := range 300 {
		o := OrderJourney{Time: creditOrderTime, Currency: "USD",
			Values: Values{TxRevenue: r.Int64N(1e12), TxCount: 1, TxCountTotal: 1,
				TxCountPending: r.Int64N(2), TxCountRefunded: r.Int64N(2), TxProductCosts: r.Int64N(1e9)}}
		for range r.IntN(7) {
			tc := Touch{Time: creditOrderTime.Add(-time.Duration(r.Int64N(100*24*3600)) * time.Second)}
			if r.IntN(3) > 0 {
				tc.Entity = ad(string(rune('a' + r.IntN(4))))
			}
			if r.IntN(3) > 0 {
				tc.Dims = TouchDims{UTMSource: []string{"email", "google", "whatsapp"}[r.IntN(3)], Device: "mobile"}
			}
			if k := len(o.Touches); k > 0 && r.IntN(4) == 0 {
				tc.Time = o.Touches[k-1].Time // a tie, broken by entity and dimensions
			}
			o.Touches = append(o.Touches, tc)
		}
		cs := Credits(o)
		for _, set := range TouchSets {
			for _, model := range CreditModels {
				for _, byClick := range []bool{false, true} {
					for w := 1; w <= MaxWindowDays; w++ {
						checkDirect(t, n, o, creditAt(cs, set, model, byClick, w), directCredits(o, set, model, w))
					}
				}
			}
		}
	}
}

// checkDirect compares journey n's credits got with want, and checks that they sum to o's values.
func checkDirect(t *testing.T, n int, o OrderJourney, got, want map[credited]Values) {
	t.Helper()
	var sum Values
	for k, v := range got {
		for i := range v {
			sum[i] += v[i]
		}
		if want[k] != v {
			t.Fatalf("journey %d: %v has %v, want %v", n, k, v, want[k])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("journey %d: %v, want %v", n, got, want)
	}
	for i := range sum {
		if full := o.Values[i] * map[bool]int64{true: CountUnit, false: 1}[!Specs[i].Money]; sum[i] != full {
			t.Fatalf("journey %d: measure %d sums to %d, want %d", n, i, sum[i], full)
		}
	}
}

// directCredits is o's credit under the touch set, model and window w, computed from the set's
// touches inside the window with big rationals (time_decay's weights as Credits rounds them).
func directCredits(o OrderJourney, set, model string, w int) map[credited]Values {
	held, _ := windowTouches(o, set)
	var in []Touch
	for _, t := range held {
		if o.Time.Sub(t.Time) <= time.Duration(w)*24*time.Hour {
			in = append(in, t)
		}
	}
	out := map[credited]Values{}
	add := func(k credited, m Measure, v int64) {
		x := out[k]
		x[m] += v
		out[k] = x
	}
	for _, m := range CreditsFamily.Measures {
		v := o.Values[m]
		if !Specs[m].Money {
			v *= CountUnit
		}
		if len(in) == 0 {
			add(credited{}, m, v)
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
			add(credited{t.Entity, t.Dims}, m, upTo-before)
			before = upTo
		}
	}
	for k, x := range out {
		if x == (Values{}) {
			delete(out, k)
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
