package adsync

import (
	"context"
	"time"

	"mtk/facts"
)

// Where a bucket's facts live in ClickHouse.
const (
	// PositionRaw: facts_raw (and so both rollups), at a minute inside the bucket.
	PositionRaw = "raw"
	// PositionHourly: facts_hourly_in (and so facts_hourly and facts_daily), at the bucket's
	// start.
	PositionHourly = "hourly"
	// PositionDaily: facts_daily_in (and so facts_daily only), on the account's local date.
	PositionDaily = "daily"
)

// bucketKey names one ad's bucket: a local date of the account and an hour, or DayBucket.
type bucketKey struct {
	Date string
	Hour int
	AdID string
}

// bucket is what ClickHouse holds for one key, and where.
type bucket struct {
	bucketKey
	Position            string
	CampaignID, AdsetID string
	Metrics             facts.Values
}

// loadBuckets reads the snapshot of a connection's buckets on local dates since..until.
func (s *Store) loadBuckets(ctx context.Context, connectionID, since, until string) (map[bucketKey]bucket, error) {
	rows, err := s.pool.Query(ctx, `SELECT local_date, hour, ad_id, position, campaign_id, adset_id, `+
		facts.Columns(facts.AdMeasures, "")+` FROM sync_buckets WHERE connection_id = $1 AND local_date >= $2::date AND local_date <= $3::date`, connectionID, since, until)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[bucketKey]bucket{}
	var date time.Time
	var hour int16
	for rows.Next() {
		var b bucket
		dest := append([]any{&date, &hour, &b.AdID, &b.Position, &b.CampaignID, &b.AdsetID}, b.Metrics.Dest(facts.AdMeasures)...)
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		b.Date, b.Hour = date.Format(time.DateOnly), int(hour)
		out[b.bucketKey] = b
	}
	return out, rows.Err()
}
