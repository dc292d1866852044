package adsync

import (
	"fmt"

	"github.com/shopspring/decimal"
)

// MajorToMicros reads a decimal amount in major units ("12.34") as integer micros, exactly:
// an amount finer than a micro is refused rather than rounded.
func MajorToMicros(s string) (int64, error) {
	d, err := decimal.NewFromString(s)
	if err != nil {
		return 0, fmt.Errorf("amount %q: %w", s, err)
	}
	m := d.Shift(6)
	if !m.IsInteger() {
		return 0, fmt.Errorf("amount %q is finer than a micro", s)
	}
	return m.IntPart(), nil
}

// MicrosToMajor writes micros as a decimal amount in major units with two decimals ("12.30").
func MicrosToMajor(micros int64) string {
	return decimal.New(micros, -6).StringFixed(2)
}
