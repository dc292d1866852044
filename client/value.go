package client

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/shopspring/decimal"
)

// Value is one member of a query row, kept as the JSON the API wrote so that nothing is rounded
// on the way: read money with Decimal, counts with Int, ratios with Float, keys with String.
// The zero Value is an absent member.
type Value struct {
	raw json.RawMessage
}

// UnmarshalJSON keeps a copy of b.
func (v *Value) UnmarshalJSON(b []byte) error {
	v.raw = append(v.raw[:0], b...)
	return nil
}

// MarshalJSON writes the value as it was read.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.raw == nil {
		return []byte("null"), nil
	}
	return v.raw, nil
}

// Raw is the value's JSON text; nil when the member was absent.
func (v Value) Raw() json.RawMessage { return v.raw }

// IsNull reports a JSON null (a ratio over 0, reach outside alpha_ads, an entity-less row's id)
// or an absent member.
func (v Value) IsNull() bool { return v.raw == nil || bytes.Equal(v.raw, []byte("null")) }

// String returns a string member (a date, an id, a name, a source); "" for null, and the JSON
// text for a number.
func (v Value) String() string {
	if v.IsNull() {
		return ""
	}
	var s string
	if json.Unmarshal(v.raw, &s) == nil {
		return s
	}
	return string(v.raw)
}

// number is the value's JSON number text, or an error naming what it is instead.
func (v Value) number() (string, error) {
	if len(v.raw) == 0 || !(v.raw[0] == '-' || v.raw[0] >= '0' && v.raw[0] <= '9') {
		return "", fmt.Errorf("mtk: value %s is not a number", v.raw)
	}
	return string(v.raw), nil
}

// Decimal returns a number exactly: use it for money. A null is an error (test IsNull first).
func (v Value) Decimal() (decimal.Decimal, error) {
	n, err := v.number()
	if err != nil {
		return decimal.Decimal{}, err
	}
	return decimal.NewFromString(n)
}

// Int returns an integer (a count).
func (v Value) Int() (int64, error) {
	n, err := v.number()
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(n, 10, 64)
}

// Float returns a number as a float64: for ratios (ctr, roas), never for money arithmetic.
func (v Value) Float() (float64, error) {
	n, err := v.number()
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(n, 64)
}
