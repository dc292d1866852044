package adsync

import (
	"time"

	"mtk/facts"
)

// factSink is where one run's facts go: the project, connection and account they belong to,
// the zones that place them and the run's clock (which places raw facts).
type factSink struct {
	projectID, connectionID, source string
	account                         Account
	accountLoc, projectLoc          *time.Location
	now                             time.Time
}

// bounds is a bucket's first instant and the first instant after it, in the account's zone.
func bounds(k bucketKey, loc *time.Location) (start, end time.Time) {
	d, _ := time.ParseInLocation(time.DateOnly, k.Date, loc)
	y, m, day := d.Date()
	if k.Hour == DayBucket {
		return time.Date(y, m, day, 0, 0, 0, 0, loc), time.Date(y, m, day+1, 0, 0, 0, 0, loc)
	}
	return time.Date(y, m, day, k.Hour, 0, 0, 0, loc), time.Date(y, m, day, k.Hour+1, 0, 0, 0, loc)
}

// rawStamp is the minute a raw bucket's difference is written at: the sync's minute while the
// bucket runs, else the bucket's last minute.
func rawStamp(k bucketKey, loc *time.Location, now time.Time) time.Time {
	start, end := bounds(k, loc)
	t := now.Truncate(time.Minute)
	if last := end.Add(-time.Minute); t.After(last) {
		t = last
	}
	if t.Before(start) {
		t = start
	}
	return t
}

// landings are the tables a batch's facts land in, in the order they are written.
var landings = []facts.Landing{facts.LandingRaw, facts.LandingHourly, facts.LandingDaily}

// facts places the differences of changes, each at its bucket's position: raw at rawStamp (in
// facts_raw); hourly at the bucket's start (in facts_hourly_in: hour and day of the project's
// zone); daily on the account's local date (in facts_daily_in). The same changes and sink
// always give the same facts, so a stored batch can be written again exactly.
func (s factSink) facts(changes []change) map[facts.Landing][]facts.Fact {
	out := map[facts.Landing][]facts.Fact{}
	for _, c := range changes {
		f := facts.Fact{
			ProjectID: s.projectID, AdEntity: facts.AdEntity{Source: s.source, ConnectionID: s.connectionID, AccountID: s.account.ID, CampaignID: c.CampaignID, AdsetID: c.AdsetID, AdID: c.AdID}, Currency: s.account.Currency, Values: c.delta}
		l := facts.LandingDaily
		switch c.Position {
		case PositionRaw:
			l, f.Time = facts.LandingRaw, rawStamp(c.bucketKey, s.accountLoc, s.now)
		case PositionHourly:
			l = facts.LandingHourly
			f.Time, _ = bounds(c.bucketKey, s.accountLoc)
		default:
			f.Time, _ = time.Parse(time.DateOnly, c.Date)
		}
		out[l] = append(out[l], f)
	}
	return out
}
