package credits

import "mtk/facts"

// adTouches are the touches of touches on an ad entity, in order. journeys_by_lead holds every
// marketing touch of a person (ingest/journeys), but facts.Credits still credits each touch it is
// given as an ad touch: until it computes the two touch sets itself (facts.TouchesAds and
// facts.TouchesAll, on the credits branch), the worker gives it only these, so that today's
// credits stay exactly as they were. This filter, and its one call in journeys.current, go when
// facts.Credits splits the sets.
func adTouches(touches []facts.Touch) []facts.Touch {
	var out []facts.Touch
	for _, t := range touches {
		if t.Entity != (facts.AdEntity{}) {
			out = append(out, t)
		}
	}
	return out
}
