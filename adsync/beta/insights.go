package beta

import (
	"context"
	"fmt"
	"strconv"

	"mtk/adsync"
	"mtk/facts"
)

type metricRow struct {
	Campaign  ref `json:"campaign"`
	AdGroup   ref `json:"adGroup"`
	AdGroupAd struct {
		Ad ref `json:"ad"`
	} `json:"adGroupAd"`
	Metrics struct {
		CostMicros  string `json:"costMicros"`
		Impressions string `json:"impressions"`
		Clicks      string `json:"clicks"`
		VideoStarts string `json:"videoStarts"`
		VideoViews  string `json:"videoViews"`
		P75         string `json:"videoQuartileP75Views"`
	} `json:"metrics"`
	Segments struct {
		Date string `json:"date"`
		Hour *int   `json:"hour"`
	} `json:"segments"`
}

// Insights reads ad metrics per local date (and hour) of the customer.
func (c *Connector) Insights(ctx context.Context, since, until string, g adsync.Grain) ([]adsync.Insight, error) {
	if !validDate(since) || !validDate(until) {
		return nil, fmt.Errorf("beta_ads: bad date range %q..%q", since, until)
	}
	segments := "segments.date"
	if g == adsync.GrainHour {
		segments += ", segments.hour"
	}
	rows, err := search[metricRow](ctx, c, "SELECT ad_group_ad.ad.id, ad_group.id, campaign.id, metrics.cost_micros, "+
		"metrics.impressions, metrics.clicks, metrics.video_starts, metrics.video_views, metrics.video_quartile_p75_views, "+
		segments+" FROM ad_group_ad WHERE segments.date BETWEEN '"+since+"' AND '"+until+"'")
	if err != nil {
		return nil, err
	}
	out := make([]adsync.Insight, 0, len(rows))
	for _, r := range rows {
		in := adsync.Insight{AdID: r.AdGroupAd.Ad.ID, AdsetID: r.AdGroup.ID, CampaignID: r.Campaign.ID, Date: r.Segments.Date, Hour: adsync.DayBucket}
		if r.Segments.Hour != nil {
			in.Hour = *r.Segments.Hour
		}
		m := r.Metrics
		for _, f := range []struct {
			dst *int64
			v   string
		}{
			{&in.Metrics[facts.Spend], m.CostMicros}, {&in.Metrics[facts.Impressions], m.Impressions}, {&in.Metrics[facts.Clicks], m.Clicks},
			{&in.Metrics[facts.VideoPlays], m.VideoStarts}, {&in.Metrics[facts.VideoViews3s], m.VideoViews}, {&in.Metrics[facts.VideoViewsP75], m.P75},
		} {
			if f.v == "" {
				continue
			}
			if *f.dst, err = strconv.ParseInt(f.v, 10, 64); err != nil {
				return nil, fmt.Errorf("beta_ads: metrics of ad %s on %s: %w", in.AdID, in.Date, err)
			}
		}
		out = append(out, in)
	}
	return out, nil
}

// validDate checks a YYYY-MM-DD date before it goes into a GAQL string.
func validDate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i, ch := range s {
		if i != 4 && i != 7 && (ch < '0' || ch > '9') {
			return false
		}
	}
	return true
}
