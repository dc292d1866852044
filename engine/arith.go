package engine

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// Answers hold hundreds of rows of several derived metrics each, and decimal division through
// math/big cost about a millisecond per such answer (the query benchmark's CPU profile). The
// functions here compute the same results on machine words when the operands fit, and fall back
// to decimal otherwise; arith_test.go compares both ways.

// one is the divisor of a plain rounding.
var one = decimal.NewFromInt(1)

// cents is num × mul × 10^shift / den rounded half away from zero to 2 decimal places: what
// num.Mul(mul).Shift(shift).DivRound(den, 2) gives (Round(2) when den is 1). den must not be 0.
func cents(num decimal.Decimal, mul int64, shift int32, den decimal.Decimal) decimal.Decimal {
	if c, ok := centsFast(num, mul, shift, den); ok {
		return decimal.New(c, -2)
	}
	return num.Mul(decimal.NewFromInt(mul)).Shift(shift).DivRound(den, 2)
}

// centsFast is cents in 128-bit words; ok is false when an operand or the divisor does not fit.
func centsFast(num decimal.Decimal, mul int64, shift int32, den decimal.Decimal) (int64, bool) {
	if num.NumDigits() > 18 || den.NumDigits() > 18 || mul <= 0 {
		return 0, false
	}
	n, d := num.CoefficientInt64(), den.CoefficientInt64()
	if d == 0 {
		return 0, false
	}
	neg := (n < 0) != (d < 0)
	ud := abs64(d)
	// value × 100 = n × mul × 10^s / d.
	hi, lo := bits.Mul64(abs64(n), uint64(mul))
	s := int(num.Exponent()) + int(shift) + 2 - int(den.Exponent())
	for ; s > 0; s-- {
		var ok bool
		if hi, lo, ok = times10(hi, lo); !ok {
			return 0, false
		}
	}
	for ; s < 0; s++ {
		h, l := bits.Mul64(ud, 10)
		if h != 0 {
			return 0, false
		}
		ud = l
	}
	if hi >= ud {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, ud)
	if r >= ud-r { // 2r ≥ ud: a half or more rounds away from zero
		q++
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	if neg {
		return -int64(q), true
	}
	return int64(q), true
}

// times10 multiplies a 128-bit number by 10; ok is false on overflow.
func times10(hi, lo uint64) (uint64, uint64, bool) {
	carry, lo := bits.Mul64(lo, 10)
	over, hi := bits.Mul64(hi, 10)
	hi, c := bits.Add64(hi, carry, 0)
	return hi, lo, over == 0 && c == 0
}

func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// fraction is num / den as a float64, nil when den is 0: a ratio (ctr, roas), which JSON
// carries as a number. Each operand is converted once and divided in floating point, within a
// few units in the 16th significant digit of the exact quotient.
func fraction(num, den decimal.Decimal) any {
	if den.IsZero() {
		return nil
	}
	f := toFloat(num) / toFloat(den)
	return &f
}

// toFloat is d as the nearest float64 when its coefficient fits a word, and through decimal's
// exact conversion otherwise.
func toFloat(d decimal.Decimal) float64 {
	if e := d.Exponent(); d.NumDigits() <= 18 && e <= 0 && e >= -22 {
		return float64(d.CoefficientInt64()) / math.Pow10(int(-e))
	}
	return d.InexactFloat64()
}
