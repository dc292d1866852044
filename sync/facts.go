package sync

import (
	"context"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/engine"
)

// factSink is where one run's facts go: the project, connection and account they belong to.
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

// write inserts the differences of changes into ClickHouse, each at its bucket's position:
// raw at rawStamp into facts_raw; hourly at the bucket's start into facts_hourly and
// facts_daily (hour and day of the project's zone); daily on the account's local date into
// facts_daily. It returns the number of fact rows written.
func (s factSink) write(ctx context.Context, ch driver.Conn, changes []change) (int64, error) {
	var raw, hourly, daily []engine.Fact
	for _, c := range changes {
		f := engine.Fact{
			ProjectID: s.projectID, Source: s.source, ConnectionID: s.connectionID, AccountID: s.account.ID,
			CampaignID: c.CampaignID, AdsetID: c.AdsetID, AdID: c.AdID, Currency: s.account.Currency,
			Spend: c.delta.Spend, Impressions: c.delta.Impressions, Clicks: c.delta.Clicks, Reach: c.delta.Reach,
			VideoPlays: c.delta.VideoPlays, VideoViews3s: c.delta.VideoViews3s, VideoViewsP75: c.delta.VideoViewsP75,
		}
		switch c.Position {
		case PositionRaw:
			f.Time = rawStamp(c.bucketKey, s.accountLoc, s.now)
			raw = append(raw, f)
		case PositionHourly:
			f.Time, _ = bounds(c.bucketKey, s.accountLoc)
			hourly = append(hourly, f)
		default:
			f.Time, _ = time.Parse(time.DateOnly, c.Date)
			daily = append(daily, f)
		}
	}
	if len(raw) > 0 {
		if err := engine.InsertFacts(ctx, ch, s.projectLoc, raw); err != nil {
			return 0, err
		}
	}
	if err := engine.InsertHourlyFacts(ctx, ch, s.projectLoc, hourly); err != nil {
		return int64(len(raw)), err
	}
	if err := engine.InsertDailyFacts(ctx, ch, daily); err != nil {
		return int64(len(raw) + len(hourly)), err
	}
	return int64(len(changes)), nil
}
