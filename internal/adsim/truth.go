package adsim

import (
	"fmt"
	"time"
)

// Truth: the exact final numbers, for tests to compare what mtk stored against. Truth is what a
// final (post-restatement) read returns at the clock's now: the hours up to now, at their final
// values even where the network still reports provisional ones.

// Granularity is the bucket size of a truth query.
type Granularity string

// The truth granularities.
const (
	GranularityHour  Granularity = "hour"  // one bucket per local date and hour
	GranularityDay   Granularity = "day"   // one bucket per local date
	GranularityTotal Granularity = "total" // one bucket for the whole range
)

// TruthQuery asks for one account's final metrics.
type TruthQuery struct {
	Network Network
	Account string
	// Level is account, campaign, adset or ad (default ad).
	Level Level
	// Granularity is hour, day or total (default day).
	Granularity Granularity
	// Since and Until are local dates (YYYY-MM-DD, in the account's time zone), both included.
	// Defaults: the first day of history, and today.
	Since, Until string
}

// TruthRow is one entity's metrics in one bucket. Spend is in minor units.
type TruthRow struct {
	EntityID   string `json:"entity_id"`
	EntityName string `json:"entity_name"`
	// Date is the bucket's local date (the range's first day for total).
	Date string `json:"date"`
	// Hour is the local hour (0-23) for hour granularity. On a day that repeats an hour (end of
	// daylight saving time) both are summed into one bucket, as the networks report them.
	Hour *int `json:"hour,omitempty"`
	Metrics
}

// Truth is the answer to a TruthQuery.
type Truth struct {
	Network     Network     `json:"network"`
	Account     string      `json:"account"`
	Currency    string      `json:"currency"`
	TimeZone    string      `json:"time_zone"`
	Level       Level       `json:"level"`
	Granularity Granularity `json:"granularity"`
	Since       string      `json:"since"`
	Until       string      `json:"until"`
	Now         time.Time   `json:"now"`
	Rows        []TruthRow  `json:"rows"`
	Total       Metrics     `json:"total"`
}

// Truth returns the final metrics of q's account at the clock's now. Rows without delivery are
// left out; rows come by date, hour and entity.
func (s *Sim) Truth(q TruthQuery) (Truth, error) {
	a := s.account(q.Network, q.Account)
	if a == nil {
		return Truth{}, fmt.Errorf("adsim: no %s account %q", q.Network, q.Account)
	}
	if q.Level == "" {
		q.Level = LevelAd
	}
	if q.Granularity == "" {
		q.Granularity = GranularityDay
	}
	if levelDepth(q.Level) == 0 && q.Level != LevelAccount {
		return Truth{}, fmt.Errorf("adsim: level %q: want account, campaign, adset or ad", q.Level)
	}
	g := grouping{level: q.Level}
	switch q.Granularity {
	case GranularityHour:
		g.byDay, g.byHour = true, true
	case GranularityDay:
		g.byDay = true
	case GranularityTotal:
	default:
		return Truth{}, fmt.Errorf("adsim: granularity %q: want hour, day or total", q.Granularity)
	}
	now := s.cfg.Clock.Now()
	since, _ := a.localOf(s.start)
	until := a.today(now.Unix())
	var err error
	if q.Since != "" {
		if since, err = parseDay(q.Since); err != nil {
			return Truth{}, fmt.Errorf("adsim: since: %w", err)
		}
	}
	if q.Until != "" {
		if until, err = parseDay(q.Until); err != nil {
			return Truth{}, fmt.Errorf("adsim: until: %w", err)
		}
	}
	if since > until {
		return Truth{}, fmt.Errorf("adsim: since %s is after until %s", since, until)
	}
	t := Truth{Network: a.network, Account: a.id, Currency: a.currency, TimeZone: a.tz, Level: q.Level,
		Granularity: q.Granularity, Since: since.String(), Until: until.String(), Now: now.UTC(), Rows: []TruthRow{}}
	for _, r := range s.rows(a, since, until, g, now.Unix(), true) {
		tr := TruthRow{EntityID: a.id, EntityName: a.name, Date: r.day.String(), Metrics: r.m}
		if r.obj != nil {
			tr.EntityID, tr.EntityName = r.obj.id, r.obj.title()
		}
		if g.byHour {
			h := r.hour
			tr.Hour = &h
		}
		t.Rows = append(t.Rows, tr)
		t.Total.Add(r.m)
	}
	return t, nil
}
