package adsim

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"mtk/internal/clock"
)

// Config sets up a simulator. The zero value of each field means its default.
type Config struct {
	// Seed makes the simulated world: with the same seed, Start and writes, every answer is the same.
	Seed int64
	// AccountsPerNetwork is how many ad accounts each network has (default 2).
	AccountsPerNetwork int
	// CampaignsPerAccount, AdSetsPerCampaign and AdsPerAdSet shape each account (defaults 3, 2, 2).
	CampaignsPerAccount int
	AdSetsPerCampaign   int
	AdsPerAdSet         int
	// Days of history before the present the objects are spread over (default 90).
	Days int
	// Start is the first day of history (UTC midnight). Default: the clock's day minus Days.
	Start time.Time
	// Clock is the simulator's notion of now (default clock.Real{}). Tests pass a *clock.Fake.
	Clock clock.Clock
	// RestateAfter is how long after a local day ends its numbers become final (default 6h).
	// Before that a read returns provisional numbers that differ by a few tenths of a percent.
	RestateAfter time.Duration
	// QuotaPerMinute is how many API requests one access token may make per clock minute
	// (fixed windows; default 0, no quota). Admin requests are not counted.
	QuotaPerMinute int
	// BudgetChangesPerHour is how many budget changes one object accepts in any hour (default 4).
	BudgetChangesPerHour int
	// DeveloperToken is the value beta requires in the developer-token header
	// (default "adsim-developer-token").
	DeveloperToken string
}

// Limits of the shape of a world, so that a typo in a flag cannot ask for a billion ads.
const (
	maxAccounts = 50
	maxChildren = 50
	maxDays     = 3 * 366
)

func (c Config) withDefaults() Config {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&c.AccountsPerNetwork, 2)
	def(&c.CampaignsPerAccount, 3)
	def(&c.AdSetsPerCampaign, 2)
	def(&c.AdsPerAdSet, 2)
	def(&c.Days, 90)
	def(&c.BudgetChangesPerHour, 4)
	if c.Clock == nil {
		c.Clock = clock.Real{}
	}
	if c.RestateAfter == 0 {
		c.RestateAfter = 6 * time.Hour
	}
	if c.DeveloperToken == "" {
		c.DeveloperToken = "adsim-developer-token"
	}
	if c.Start.IsZero() {
		c.Start = dayOf(c.Clock.Now().UTC()).utc().AddDate(0, 0, -c.Days)
	}
	return c
}

// Validate names every bad value at once. New fills the defaults before it validates, so a
// zero field is valid there; Validate alone sees it as it is.
func (c Config) Validate() error {
	var problems []string
	check := func(name string, v, lo, hi int) {
		if v < lo || v > hi {
			problems = append(problems, fmt.Sprintf("%s %d: want %d to %d", name, v, lo, hi))
		}
	}
	check("AccountsPerNetwork", c.AccountsPerNetwork, 1, maxAccounts)
	check("CampaignsPerAccount", c.CampaignsPerAccount, 1, maxChildren)
	check("AdSetsPerCampaign", c.AdSetsPerCampaign, 1, maxChildren)
	check("AdsPerAdSet", c.AdsPerAdSet, 1, maxChildren)
	check("Days", c.Days, 1, maxDays)
	check("BudgetChangesPerHour", c.BudgetChangesPerHour, 1, 1000)
	if c.QuotaPerMinute < 0 {
		problems = append(problems, fmt.Sprintf("QuotaPerMinute %d: want 0 (none) or more", c.QuotaPerMinute))
	}
	if c.RestateAfter < 0 {
		problems = append(problems, "RestateAfter: must not be negative")
	}
	if !c.Start.Equal(dayOf(c.Start.UTC()).utc()) {
		problems = append(problems, fmt.Sprintf("Start %s: want a UTC midnight", c.Start.Format(time.RFC3339)))
	}
	if len(problems) > 0 {
		return errors.New("adsim: invalid configuration: " + strings.Join(problems, "; "))
	}
	return nil
}
