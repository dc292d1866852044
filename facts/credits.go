package facts

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"time"
)

// Attribution models that credit an order's touches (CONTRACT "Query: attribution models"); the
// engine adds "reported", which reads the facts as attributed at ingestion.
const (
	ModelLastClick     = "last_click"
	ModelFirstClick    = "first_click"
	ModelLinear        = "linear"
	ModelPositionBased = "position_based"
	ModelTimeDecay     = "time_decay"
)

// CreditModels are the models credits_raw holds.
var CreditModels = []string{ModelLastClick, ModelFirstClick, ModelLinear, ModelPositionBased, ModelTimeDecay}

const (
	// MaxWindowDays is the longest attribution window: older touches never earn credit.
	MaxWindowDays = 90
	// CountUnit is how many units of a credited count make one order: counts are credited in
	// micro units, integers that sum exactly, so that a total of many shares is their exact sum
	// (the answer rounds it to 4 decimals once; 1/10,000 shares lost up to 1/20,000 each).
	// Stored before schema/clickhouse/0012: 1/10,000 (that migration scales them).
	CountUnit = 1_000_000
	// timeDecayHalfLife is time_decay's half-life: a touch a week older weighs half.
	timeDecayHalfLife = 7 * 24 * time.Hour
	// decayScale turns time_decay's weights into integers: even a 90-day-old touch's weight
	// keeps 27 significant bits.
	decayScale = 1 << 40
)

// Touch is one touch of a person: an event or tracking-link click, with the ad entity its UTM
// resolved to (none for a touch of TouchesAll only) and its traffic dimensions.
type Touch struct {
	Time   time.Time `json:"time"`
	Entity AdEntity  `json:"entity"`
	Dims   TouchDims `json:"dims,omitzero"`
}

// OrderJourney is what an order's credits are made from: its time, currency and values (money in
// micros of Currency, counts in orders, as the journeys' order rows sum), and its person's
// touches, in any order (those after the order or older than MaxWindowDays are ignored).
type OrderJourney struct {
	Time     time.Time
	Currency string
	Values   Values // of CreditsFamily.Measures
	Touches  []Touch
}

// Credit is one delta row of credits_raw: under Model crediting the touch set Touches, from
// windows of WindowDays days on, the credit of a touch's Entity and Dims (both empty: the
// unattributed part; Entity alone empty: a touch of TouchesAll that is no ad) changes by Values
// (counts in CountUnit), at Time (the order's or, ByClick, the touch's).
type Credit struct {
	Model      string
	Touches    string
	ByClick    bool
	WindowDays uint8
	Time       time.Time
	Entity     AdEntity
	Dims       TouchDims
	Currency   string
	Values     Values
}

// Credits are the delta rows of o under every model and touch set, on both dates: TouchesAds
// credits the touches of o.Touches with an entity, TouchesAll every one. For each set, model and
// window w, the rows with WindowDays <= w sum, per touch, to the touch's credit under w, and with
// the unattributed rows to o's values exactly: each share is allocated in whole units by
// cumulative weights, so that rounding never loses or adds a unit.
func Credits(o OrderJourney) []Credit {
	var byClick []Credit
	for _, set := range TouchSets {
		touches, enter := windowTouches(o, set)
		for _, model := range CreditModels {
			byClick = append(byClick, modelCredits(o, model, set, touches, enter)...)
		}
	}
	// The conversion-date rows are the same deltas on the order's time.
	out := make([]Credit, 0, 2*len(byClick))
	for _, c := range byClick {
		c.Time = o.Time
		out = append(out, c)
	}
	for _, c := range byClick {
		c.ByClick = true
		out = append(out, c)
	}
	return out
}

// windowTouches are o's touches of the touch set that some window holds, in time order (ties by
// entity and dimensions, so that every run credits alike), and for each the first window that
// holds it.
func windowTouches(o OrderJourney, set string) ([]Touch, []uint8) {
	var ts []Touch
	for _, t := range o.Touches {
		if set == TouchesAds && t.Entity == (AdEntity{}) {
			continue
		}
		if age := o.Time.Sub(t.Time); age >= 0 && age <= MaxWindowDays*24*time.Hour {
			ts = append(ts, t)
		}
	}
	slices.SortFunc(ts, func(a, b Touch) int {
		return cmp.Or(a.Time.Compare(b.Time), a.Entity.compare(b.Entity), a.Dims.compare(b.Dims))
	})
	enter := make([]uint8, len(ts))
	for i, t := range ts {
		days := (o.Time.Sub(t.Time) + 24*time.Hour - 1) / (24 * time.Hour) // ceil(age / 1 day)
		enter[i] = uint8(max(days, 1))
	}
	return ts, enter
}

// modelCredits are the delta rows of one model and touch set by click date: each touch's rows on
// its touch's time, the unattributed rows on the order's.
func modelCredits(o OrderJourney, model, set string, touches []Touch, enter []uint8) []Credit {
	values := o.Values
	for _, m := range CreditsFamily.Measures {
		if !Specs[m].Money {
			values[m] *= CountUnit
		}
	}
	// row is a delta of touch t (the zero Touch at the order's time: the unattributed part).
	row := func(b uint8, t Touch, v Values) Credit {
		return Credit{Model: model, Touches: set, WindowDays: b, Time: t.Time, Entity: t.Entity, Dims: t.Dims,
			Currency: o.Currency, Values: v}
	}
	none := Touch{Time: o.Time}
	var out []Credit
	if len(touches) == 0 || enter[len(enter)-1] > 1 {
		// No touch is inside a 1-day window: the order is unattributed until its last touch enters.
		out = append(out, row(1, none, values))
		if len(touches) > 0 {
			out = append(out, row(enter[len(enter)-1], none, values.Neg()))
		}
	}
	prev := make([]Values, len(touches))
	// Windows hold a suffix of the touches in time order: from the last touch back to the oldest
	// one whose window has come.
	for first := len(touches); first > 0; {
		b := enter[first-1]
		for first > 0 && enter[first-1] == b {
			first--
		}
		held := touches[first:]
		shares := allocate(values, weights(model, o.Time, held))
		for j, s := range shares {
			k := first + j
			d := s.Sub(prev[k])
			if !d.IsZero() {
				out = append(out, row(b, held[j], d))
			}
			prev[k] = s
		}
	}
	return out
}

// weights are the model's weights of the touches held, in time order.
func weights(model string, at time.Time, held []Touch) []uint64 {
	n := len(held)
	w := make([]uint64, n)
	switch model {
	case ModelFirstClick:
		w[0] = 1
	case ModelLinear:
		for i := range w {
			w[i] = 1
		}
	case ModelPositionBased:
		// 40/20/40: the first and the last 40 % each, the middle ones 20 % between them, so a middle
		// touch weighs 1 to the ends' 2(n-2); one touch takes all, two share half each.
		for i := range w {
			w[i] = 1
			if n > 2 && (i == 0 || i == n-1) {
				w[i] = uint64(2 * (n - 2))
			}
		}
	case ModelTimeDecay:
		for i, t := range held {
			w[i] = uint64(math.Round(math.Exp2(-float64(at.Sub(t.Time))/float64(timeDecayHalfLife)) * decayScale))
		}
	default: // last_click
		w[n-1] = 1
	}
	return w
}

// allocate splits each value by the weights in whole units: share i is floor(v*W_i/W) -
// floor(v*W_(i-1)/W), with W_i the sum of the first i weights, so the shares sum to v.
func allocate(values Values, w []uint64) []Values {
	var total uint64
	for _, x := range w {
		total += x
	}
	out := make([]Values, len(w))
	for _, m := range CreditsFamily.Measures {
		v := values[m]
		var cum uint64
		var before int64
		for i, x := range w {
			cum += x
			upTo := mulDiv(v, cum, total)
			out[i][m] = upTo - before
			before = upTo
		}
	}
	return out
}

// mulDiv is floor(v*num/den) for 0 <= num <= den, exact for every int64 v (negative values are
// split as their magnitude, negated).
func mulDiv(v int64, num, den uint64) int64 {
	mag := uint64(v)
	if v < 0 {
		mag = -mag
	}
	hi, lo := bits.Mul64(mag, num)
	q, _ := bits.Div64(hi, lo, den) // hi < den since num <= den
	if v < 0 {
		return -int64(q)
	}
	return int64(q)
}

// NegateCredits returns cs with every value's sign flipped: the rows that take them back.
func NegateCredits(cs []Credit) []Credit {
	out := make([]Credit, len(cs))
	for i, c := range cs {
		c.Values = c.Values.Neg()
		out[i] = c
	}
	return out
}
