package platform

import (
	"testing"
	"time"
)

// The contract's tiers: rate limits, sync intervals and sub-hour granularities; anything else is
// the default tier.
func TestTierPlans(t *testing.T) {
	for _, tc := range []struct {
		tier    string
		rpm     int
		every   time.Duration
		subHour bool
	}{
		{TierDefault, 120, 30 * time.Minute, false},
		{TierGrowth, 300, 10 * time.Minute, true},
		{TierEnterprise, 1000, 5 * time.Minute, true},
		{"", 120, 30 * time.Minute, false},
		{"platinum", 120, 30 * time.Minute, false},
	} {
		if RequestsPerMinute(tc.tier) != tc.rpm || SyncInterval(tc.tier) != tc.every || SubHourGranularities(tc.tier) != tc.subHour {
			t.Errorf("%q: %d/min, every %s, sub-hour %v", tc.tier, RequestsPerMinute(tc.tier), SyncInterval(tc.tier),
				SubHourGranularities(tc.tier))
		}
	}
}
