package engine

import (
	"math"
	"math/big"
	"math/rand"
	"testing"

	"github.com/shopspring/decimal"
)

// TestCentsMatchesDecimal compares the word-sized path with decimal's DivRound on edge cases
// (halves both ways, signs, operands and quotients too large for a word) and random operands
// of the shapes answers have: sums of Decimal128(8) money, integer counts, per 1 and 1000; and
// centsPer, which takes the count as an integer, likewise.
func TestCentsMatchesDecimal(t *testing.T) {
	d := decimal.RequireFromString
	cases := []struct {
		num  decimal.Decimal
		mul  int64
		den  decimal.Decimal
		fast bool
	}{
		{d("5000.00000000"), 1, one, true},  // 0.005 → 0.01
		{d("-5000.00000000"), 1, one, true}, // -0.005 → -0.01
		{d("4999.99999999"), 1, one, true},  // 0.00499… → 0.00
		{d("15000000"), 1, d("3"), true},    // 15 / 3 = 5.00
		{d("2500000"), 1, d("-2"), true},    // -1.25
		{d("1234567890123.45678901"), 1000, d("7"), true},
		{d("99999999999999999999.12345678"), 1, one, true},
		{d("9999999999999999999999999999999999999999.5"), 1, one, false},
		{d("12"), 1, d("123456789012345678901"), false},
		{d("0"), 1000, d("5"), true},
	}
	for _, c := range cases {
		want := c.num.Mul(decimal.NewFromInt(c.mul)).Shift(-6).DivRound(c.den, 2)
		if got := cents(c.num, c.mul, -6, c.den); !got.Equal(want) {
			t.Errorf("cents(%s × %d / %s) = %s, want %s", c.num, c.mul, c.den, got, want)
		}
		if c.den.IsInteger() && c.den.NumDigits() <= 18 {
			if got := centsPer(c.num, c.mul, -6, c.den.IntPart()); !got.Equal(want) {
				t.Errorf("centsPer(%s × %d / %s) = %s, want %s", c.num, c.mul, c.den, got, want)
			}
		}
		if _, ok := centsFast(c.num, c.mul, -6, c.den); ok != c.fast {
			t.Errorf("cents(%s × %d / %s): word path %v, want %v", c.num, c.mul, c.den, ok, c.fast)
		}
	}
	r := rand.New(rand.NewSource(1))
	fast := 0
	for i := 0; i < 200_000; i++ {
		num := decimal.New(r.Int63n(1<<uint(r.Intn(62)+1))-r.Int63n(1<<20), -int32(r.Intn(9)))
		if r.Intn(4) == 0 { // Decimal128(8) sums beyond a word
			num = num.Mul(decimal.New(r.Int63n(1<<40)+1, 0))
		}
		den := decimal.NewFromInt(r.Int63n(1<<uint(r.Intn(40)+1)) + 1)
		if r.Intn(10) == 0 {
			den = den.Neg()
		}
		mul := []int64{1, 1000}[r.Intn(2)]
		want := num.Mul(decimal.NewFromInt(mul)).Shift(-6).DivRound(den, 2)
		if got := cents(num, mul, -6, den); !got.Equal(want) {
			t.Fatalf("cents(%s × %d / %s) = %s, want %s", num, mul, den, got, want)
		}
		if got := centsPer(num, mul, -6, den.IntPart()); !got.Equal(want) {
			t.Fatalf("centsPer(%s × %d / %s) = %s, want %s", num, mul, den, got, want)
		}
		if _, ok := centsFast(num, mul, -6, den); ok {
			fast++
		}
	}
	if fast < 150_000 {
		t.Errorf("the word path took %d of 200,000 random cases", fast)
	}
}

// TestFractionIsTheDecimalQuotient checks the float path against the exact quotient to 1e-15,
// relatively.
func TestFractionIsTheDecimalQuotient(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for i := 0; i < 100_000; i++ {
		num := decimal.New(r.Int63n(1<<uint(r.Intn(62)+1)), -int32(r.Intn(9)))
		den := decimal.New(r.Int63n(1<<uint(r.Intn(62)+1))+1, -int32(r.Intn(9)))
		if i%100 == 0 {
			num = num.Mul(decimal.New(1, 12)) // beyond a word: decimal's conversion
		}
		want, _ := new(big.Rat).Quo(num.Rat(), den.Rat()).Float64()
		got := *fraction(num, den).(*float64)
		if math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Fatalf("fraction(%s, %s) = %v, want %v", num, den, got, want)
		}
	}
	if fraction(decimal.NewFromInt(3), decimal.Zero) != nil {
		t.Error("a zero denominator is not null")
	}
}
