package gamma

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"mtk/adsync"
	"mtk/facts"
)

type reportRow struct {
	Dimensions struct {
		AdID string `json:"ad_id"`
		Day  string `json:"stat_time_day"`
		Hour string `json:"stat_time_hour"`
	} `json:"dimensions"`
	Metrics struct {
		CampaignID  string `json:"campaign_id"`
		AdgroupID   string `json:"adgroup_id"`
		Spend       string `json:"spend"`
		Impressions string `json:"impressions"`
		Clicks      string `json:"clicks"`
		Plays       string `json:"video_play_actions"`
		Views3s     string `json:"video_watched_2s"`
		P75         string `json:"video_views_p75"`
	} `json:"metrics"`
}

var reportMetrics, _ = json.Marshal([]string{"campaign_id", "adgroup_id", "spend", "impressions", "clicks",
	"video_play_actions", "video_watched_2s", "video_views_p75"})

// Insights reads the BASIC report at ad level per local day (or hour) of the advertiser.
func (c *Connector) Insights(ctx context.Context, since, until string, g adsync.Grain) ([]adsync.Insight, error) {
	timeDim := "stat_time_day"
	if g == adsync.GrainHour {
		timeDim = "stat_time_hour"
	}
	dims, _ := json.Marshal([]string{"ad_id", timeDim})
	rows, err := list[reportRow](ctx, c, "report/integrated/get/", url.Values{
		"report_type": {"BASIC"}, "data_level": {"AUCTION_AD"}, "dimensions": {string(dims)},
		"metrics": {string(reportMetrics)}, "start_date": {since}, "end_date": {until},
	})
	if err != nil {
		return nil, err
	}
	out := make([]adsync.Insight, 0, len(rows))
	for _, r := range rows {
		in, err := r.insight()
		if err != nil {
			return nil, fmt.Errorf("gamma_ads: report of ad %s: %w", r.Dimensions.AdID, err)
		}
		out = append(out, in)
	}
	return out, nil
}

func (r reportRow) insight() (adsync.Insight, error) {
	m := r.Metrics
	in := adsync.Insight{AdID: r.Dimensions.AdID, AdsetID: m.AdgroupID, CampaignID: m.CampaignID, Hour: adsync.DayBucket}
	stamp := r.Dimensions.Day
	if r.Dimensions.Hour != "" {
		stamp = r.Dimensions.Hour
	}
	date, clock, ok := strings.Cut(stamp, " ")
	if !ok || len(clock) < 2 {
		return in, fmt.Errorf("bad time %q", stamp)
	}
	in.Date = date
	var err error
	if r.Dimensions.Hour != "" {
		if in.Hour, err = strconv.Atoi(clock[:2]); err != nil {
			return in, fmt.Errorf("bad hour %q", stamp)
		}
	}
	if in.Metrics[facts.Spend], err = adsync.ParseAmount(m.Spend); err != nil {
		return in, err
	}
	for _, f := range []struct {
		dst *int64
		v   string
	}{
		{&in.Metrics[facts.Impressions], m.Impressions}, {&in.Metrics[facts.Clicks], m.Clicks}, {&in.Metrics[facts.VideoPlays], m.Plays},
		{&in.Metrics[facts.VideoViews3s], m.Views3s}, {&in.Metrics[facts.VideoViewsP75], m.P75},
	} {
		if *f.dst, err = adsync.ParseCount(f.v); err != nil {
			return in, err
		}
	}
	return in, nil
}
