package adsim

import (
	"fmt"
	"strconv"
	"strings"
)

// Money is kept in integer minor units of the account currency from generation to the wire; it is
// formatted as major units only when a network's response needs a decimal string.

// currencyExp is the number of minor-unit digits of each currency the simulator uses.
var currencyExp = map[string]int{"BRL": 2, "USD": 2, "EUR": 2}

var pow10 = [...]int64{1, 10, 100, 1000, 10000, 100000, 1000000}

// formatMinor renders minor units as a major-unit decimal string ("1234" with exp 2 is "12.34").
func formatMinor(minor int64, exp int) string {
	if exp == 0 {
		return strconv.FormatInt(minor, 10)
	}
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	p := pow10[exp]
	return fmt.Sprintf("%s%d.%0*d", sign, minor/p, exp, minor%p)
}

// parseMajor reads a non-negative major-unit decimal ("12", "12.5", "12.50") exactly as minor units.
// More decimals than the currency has are refused, as the networks do.
func parseMajor(s string, exp int) (int64, error) {
	s = strings.TrimSpace(s)
	whole, frac, hasDot := strings.Cut(s, ".")
	if whole == "" || (hasDot && frac == "") || len(frac) > exp || len(whole) > 12 {
		return 0, fmt.Errorf("%q is not an amount with at most %d decimals", s, exp)
	}
	for _, c := range whole + frac {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%q is not an amount with at most %d decimals", s, exp)
		}
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	f := int64(0)
	if frac != "" {
		f, _ = strconv.ParseInt(frac, 10, 64)
		f *= pow10[exp-len(frac)]
	}
	return w*pow10[exp] + f, nil
}

// microsPerMinor is how many micros (millionths of a major unit) one minor unit is.
func microsPerMinor(exp int) int64 { return pow10[6-exp] }
