package capi

import (
	"encoding/json"
	"math"
	"testing"
)

func TestAmount(t *testing.T) {
	tests := []struct {
		cents int64
		want  string
	}{
		{0, "0.00"},
		{5, "0.05"},
		{50, "0.50"},
		{1999, "19.99"},
		{100000, "1000.00"},
		{-5, "-0.05"},
		{-1999, "-19.99"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
	}
	for _, tt := range tests {
		b, err := json.Marshal(Amount(tt.cents))
		if err != nil {
			t.Fatalf("Marshal(%d): %v", tt.cents, err)
		}
		if string(b) != tt.want {
			t.Errorf("Amount(%d) = %s, want %s", tt.cents, b, tt.want)
		}
	}
}
