package capi

import "strconv"

// Amount is money in cents: hundredths of the currency's major unit, mtk's unit for every
// currency. It marshals as a JSON number in major units with two decimals (1999 is 19.99),
// formatted from the integer, never through a float.
type Amount int64

// MarshalJSON writes the amount in major units.
func (a Amount) MarshalJSON() ([]byte, error) {
	return []byte(a.String()), nil
}

// String is the amount in major units with two decimals: "19.99", "-0.05", "0.00".
func (a Amount) String() string {
	v := int64(a)
	sign := ""
	if v < 0 {
		sign = "-"
	}
	u := uint64(v) // two's complement: for v < 0, -u below is |v|, even for the smallest int64
	if v < 0 {
		u = -u
	}
	frac := strconv.FormatUint(u%100, 10)
	if len(frac) == 1 {
		frac = "0" + frac
	}
	return sign + strconv.FormatUint(u/100, 10) + "." + frac
}
