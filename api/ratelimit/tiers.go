package ratelimit

// The tiers of the contract and their requests per window.
const (
	TierDefault    = "default"
	TierGrowth     = "growth"
	TierEnterprise = "enterprise"
)

var tierLimits = map[string]int{
	TierDefault:    120,
	TierGrowth:     300,
	TierEnterprise: 1000,
}

// TierLimit is the number of requests per window of a workspace tier; an empty or unknown tier
// gets the default tier's limit.
func TierLimit(tier string) int {
	if n, ok := tierLimits[tier]; ok {
		return n
	}
	return tierLimits[TierDefault]
}
