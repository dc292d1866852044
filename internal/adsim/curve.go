package adsim

// The daily curve: how an owner's budget is spread over the hours of a local day. Weights are
// relative (percent of the evening peak); each (owner, hour) gets ±10% noise so that no two days
// look alike, and each (owner, day) a pace of 90-98.5% of the budget.

var curve = [24]int64{
	22, 14, 9, 7, 6, 8, 14, 26, 42, 58, 70, 78, // 00-11
	84, 86, 85, 83, 82, 84, 90, 96, 100, 92, 70, 42, // 12-23
}

// lifetimePace is the share of a lifetime budget, in per mille, that a flight spends when it is
// live all along.
const lifetimePace = 960

// weight is owner o's curve weight for the hour starting at Unix second h.
func (s *Sim) weight(o *object, h int64) int64 {
	_, lh := o.acct.localOf(h)
	return curve[lh] * between(mix(uint64(s.cfg.Seed), o.key, uint64(h), 1), 900, 1100)
}

// dailyPace is the share of its daily budget, in per mille, that o spends on day d when live all day.
func (s *Sim) dailyPace(o *object, d day) int64 {
	return between(mix(uint64(s.cfg.Seed), o.key, uint64(d), 2), 900, 985)
}

// adWeight is ad's share of its owner's spend in hour h; it drifts from day to day.
func (s *Sim) adWeight(ad *object, h int64) int64 {
	return ad.weight * between(mix(uint64(s.cfg.Seed), ad.key, uint64(h/86400), 3), 80, 120)
}
