package facts

import "time"

// MicrosPerMinor is how many micros (the unit of every money measure) one minor unit of a
// two-decimal currency (a cent) is.
const MicrosPerMinor = 10_000

// Fact is one additive fact row: ad-network metrics, or business facts (events, orders) that
// attribution linked to an ad entity, or both. A restated metric or an upserted order is written
// as a signed correcting difference. Money is in micros of Currency.
type Fact struct {
	ProjectID string
	Time      time.Time // truncated to the minute when written
	AdEntity
	Currency string
	Values   Values

	// OutboxID is the ingest fact outbox row the fact came from, 0 for any other writer: the
	// outbox drainer finds what a crashed run already wrote by it.
	OutboxID uint64
}

// Entity is one version of an ad account, campaign, ad set or ad; the highest Version wins.
type Entity struct {
	ProjectID string
	Source    string
	Level     string // account, campaign, adset or ad
	ID        string
	Name      string
	ParentID  string
	Version   uint64
}

// The supported instants [MinTime, MaxTime): those a fact, an event or an order may have and a
// query may ask about (CONTRACT "Hostile input"). ClickHouse reads a date or a date-time written
// as text only from 1970-01-01 through 2105-12-31 (a time outside wraps around silently: 1965
// becomes 2101, 2106 becomes 1970). A day of margin at each end keeps inside it the local day of
// each of these instants in every zone, and the day after it too, which ends a query's range of
// days (exclusive).
var (
	MinTime = time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)
	MaxTime = time.Date(2105, 12, 30, 0, 0, 0, 0, time.UTC)
)

// TimeOK reports whether t is a supported instant (see MinTime).
func TimeOK(t time.Time) bool { return !t.Before(MinTime) && t.Before(MaxTime) }

// TimeRange says what the supported instants are, for an error's details.
func TimeRange() string {
	return "from " + MinTime.Format(time.RFC3339) + " to before " + MaxTime.Format(time.RFC3339)
}

// Times are the stored times of a fact at t in the project's zone: its minute, the start of its
// local hour, and its local day (midnight UTC of that date).
func Times(t time.Time, loc *time.Location) (minute, hour, day time.Time) {
	minute = t.UTC().Truncate(time.Minute)
	return minute, HourStart(minute, loc).UTC(), LocalDay(minute, loc)
}

// LocalDay is t's calendar day in loc, as midnight UTC of that date.
func LocalDay(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// HourStart is the instant at which t's local hour in loc starts.
func HourStart(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return t.Add(-time.Duration(l.Minute())*time.Minute - time.Duration(l.Second())*time.Second -
		time.Duration(l.Nanosecond())).Truncate(time.Second)
}
