package main

import (
	"fmt"
	"math/rand"
	"slices"
	"time"
)

// journeyLengths are how often a buyer from an ad has visited from ads 1 to 6 times by the
// order (in percent): most buy within a visit or two, a few after many.
var journeyLengths = []int{40, 25, 15, 10, 6, 4}

func journeyLength(r *rand.Rand) int {
	n := r.Intn(100)
	for i, w := range journeyLengths {
		if n -= w; n < 0 {
			return i + 1
		}
	}
	return 1
}

// journeyGap draws the time between two visits of a journey: hours, days, or weeks, so that
// some journeys outlast a 7-day attribution window.
func journeyGap(r *rand.Rand) time.Duration {
	minutes := func(lo, hi int) time.Duration { return time.Duration(lo+r.Intn(hi-lo+1)) * time.Minute }
	switch n := r.Intn(100); {
	case n < 45:
		return minutes(60, 24*60)
	case n < 80:
		return minutes(24*60, 6*24*60)
	}
	return minutes(6*24*60, 20*24*60)
}

// oldestVisit is how far back a journey reaches: the events route takes timestamps up to 90
// days old, less the time seeding takes.
const oldestVisit = 89 * 24 * time.Hour

// journey draws the visits from ads that came before last, oldest first: none for a buyer who
// orders on the first visit, else up to five, each from an ad of any network that ran that day
// (the last visit's ad when a few draws find none), mostly on the same device.
func (s trafficSender) journey(visitor int, last visit, now time.Time) []visit {
	var out []visit
	at := last.at
	for j := range journeyLength(s.r) - 1 {
		if at = at.Add(-journeyGap(s.r)); at.Before(now.Add(-oldestVisit)) {
			break
		}
		date := at.In(s.loc).Format(time.DateOnly)
		utm := last.utm
		for range 8 {
			if ad := pick(s.r, s.ads); ad.days[date].clicks > 0 {
				utm = ad.utm
				break
			}
		}
		ua := last.ua
		if s.r.Intn(4) == 0 {
			ua = browser(s.r)
		}
		out = append(out, s.newVisit(fmt.Sprintf("%d-j%d", visitor, j+1), at, ua, pick(s.r, paidLandings), paidReferrer(utm), utm))
	}
	slices.Reverse(out)
	return out
}

// adBuyer is buyer for visit v from an ad, after the journey that brought the buyer there: the
// journey's first visit signs up, the later ones (v too) are page views of a known visitor, each
// a touch of an ad (docs/querying.md: attribution models); the order carries v's UTM. It returns the
// journey's number of earlier visits.
func (s trafficSender) adBuyer(visitor int, v visit, currency string, b basket, now time.Time) (int, error) {
	earlier := s.journey(visitor, v, now)
	if len(earlier) == 0 {
		if err := s.pageView(v, ""); err != nil {
			return 0, err
		}
		return 0, s.buyer(visitor, v, currency, b, now)
	}
	if err := s.pageView(earlier[0], ""); err != nil {
		return 0, err
	}
	customer, err := s.signUp(visitor, earlier[0], now)
	if err != nil {
		return 0, err
	}
	email := customer["email"].(string)
	for _, e := range append(earlier[1:], v) {
		if err := s.pageView(e, email); err != nil {
			return 0, err
		}
	}
	if err := s.checkout(v, customer, currency, b, now); err != nil {
		return 0, err
	}
	return len(earlier), s.returns(visitor, v, customer, now)
}
