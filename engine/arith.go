package engine

import (
	"math"
	"math/bits"

	"github.com/shopspring/decimal"
)

// Answers hold hundreds of rows of several derived metrics each, and decimal arithmetic through
// math/big dominated their CPU (benchmarks/README.md). The functions here compute the same
// results on 128-bit words when the operands fit, and fall back to decimal otherwise;
// arith_test.go compares both ways.

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

// centsPer is cents with an integer den (a count), which must not be 0.
func centsPer(num decimal.Decimal, mul int64, shift int32, den int64) decimal.Decimal {
	if c, ok := centsWords(num, mul, shift, den < 0, abs64(den), 0); ok {
		return decimal.New(c, -2)
	}
	return num.Mul(decimal.NewFromInt(mul)).Shift(shift).DivRound(decimal.NewFromInt(den), 2)
}

// u128 is an unsigned 128-bit number.
type u128 struct{ hi, lo uint64 }

// wordsOf is d's coefficient as a sign and a u128; ok is false when it needs more bits.
func wordsOf(d decimal.Decimal) (neg bool, v u128, ok bool) {
	if d.NumDigits() <= 18 { // the usual case, read without copying the coefficient
		c := d.CoefficientInt64()
		return c < 0, u128{0, abs64(c)}, true
	}
	c := d.Coefficient()
	if c.BitLen() > 128 {
		return false, u128{}, false
	}
	neg = c.Sign() < 0
	c.Abs(c)
	w := c.Bits()
	switch {
	case bits.UintSize != 64:
		return false, u128{}, false
	case len(w) == 1:
		v.lo = uint64(w[0])
	case len(w) == 2:
		v.lo, v.hi = uint64(w[0]), uint64(w[1])
	}
	return neg, v, true
}

func abs64(v int64) uint64 {
	if v < 0 {
		return uint64(-v)
	}
	return uint64(v)
}

// mul64 is v × m; ok is false on overflow.
func (v u128) mul64(m uint64) (u128, bool) {
	carry, lo := bits.Mul64(v.lo, m)
	over, hi := bits.Mul64(v.hi, m)
	hi, c := bits.Add64(hi, carry, 0)
	return u128{hi, lo}, over == 0 && c == 0
}

// divmod64 is v / d and v mod d (long division by a word).
func (v u128) divmod64(d uint64) (u128, uint64) {
	qhi, r := v.hi/d, v.hi%d
	qlo, r := bits.Div64(r, v.lo, d)
	return u128{qhi, qlo}, r
}

// pow10s are the powers of ten that fit a uint64.
var pow10s = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// centsFast is cents on words; ok is false when an operand or an intermediate does not fit.
func centsFast(num decimal.Decimal, mul int64, shift int32, den decimal.Decimal) (int64, bool) {
	dneg, dv, ok := wordsOf(den)
	if !ok || dv.hi != 0 {
		return 0, false
	}
	return centsWords(num, mul, shift, dneg, dv.lo, den.Exponent())
}

// centsWords is centsFast with den given as its sign, its coefficient d and its exponent.
func centsWords(num decimal.Decimal, mul int64, shift int32, dneg bool, d uint64, dexp int32) (int64, bool) {
	if mul <= 0 || d == 0 {
		return 0, false
	}
	nneg, n, ok := wordsOf(num)
	if !ok {
		return 0, false
	}
	if n, ok = n.mul64(uint64(mul)); !ok {
		return 0, false
	}
	// value × 100 = n × 10^s / d, and for s < 0, n / (d × p) with p = 10^-s, divided in two
	// steps: q1, r1 = n / d; q, r2 = q1 / p. The remainder of n / (d × p) is r2 × d + r1.
	s := int(num.Exponent()) + int(shift) + 2 - int(dexp)
	if s >= len(pow10s) || -s >= len(pow10s) {
		return 0, false
	}
	p := uint64(1)
	if s > 0 {
		if n, ok = n.mul64(pow10s[s]); !ok {
			return 0, false
		}
	} else {
		p = pow10s[-s]
	}
	q1, r1 := n.divmod64(d)
	q, r2 := q1.divmod64(p)
	// Round half away from zero: 2 × (r2 × d + r1) ≥ p × d.
	rem, ok := u128{0, r2}.mul64(d)
	if !ok {
		return 0, false
	}
	var c uint64
	rem.lo, c = bits.Add64(rem.lo, r1, 0)
	rem.hi += c
	twice, ok := rem.mul64(2)
	whole, ok2 := u128{0, p}.mul64(d)
	if !ok || !ok2 || q.hi != 0 {
		return 0, false
	}
	if twice.hi > whole.hi || twice.hi == whole.hi && twice.lo >= whole.lo {
		q.lo++
	}
	if q.lo > math.MaxInt64 {
		return 0, false
	}
	if nneg != dneg {
		return -int64(q.lo), true
	}
	return int64(q.lo), true
}

// fraction is num / den as a float64, nil when den is 0: a ratio (ctr, roas), which JSON
// carries as a number. Each operand is converted once and divided in floating point, within a
// few units in the 16th significant digit of the exact quotient.
func fraction(num, den decimal.Decimal) any {
	if den.IsZero() {
		return nil
	}
	return quotient(toFloat(num), toFloat(den))
}

// quotient is num / den as a row's ratio value.
func quotient(num, den float64) any {
	f := num / den
	return &f
}

// toFloat is d as a float64 (within an ulp or two when its coefficient fits 128 bits, through
// decimal's exact conversion otherwise).
func toFloat(d decimal.Decimal) float64 {
	e := d.Exponent()
	neg, v, ok := wordsOf(d)
	if !ok || e > 0 || e < -22 {
		return d.InexactFloat64()
	}
	f := (float64(v.hi)*(1<<64) + float64(v.lo)) / math.Pow10(int(-e))
	if neg {
		return -f
	}
	return f
}
