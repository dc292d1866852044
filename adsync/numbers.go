package adsync

import "strconv"

// ParseCount reads a count that a network sends as a decimal string; an absent value ("") is 0.
func ParseCount(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return strconv.ParseInt(s, 10, 64)
}

// ParseAmount reads an amount in major units as micros, like MajorToMicros; an absent value
// ("") is 0.
func ParseAmount(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	return MajorToMicros(s)
}
