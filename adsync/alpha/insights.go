package alpha

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

type action struct {
	ActionType string `json:"action_type"`
	Value      string `json:"value"`
}

type insightRow struct {
	CampaignID  string   `json:"campaign_id"`
	AdsetID     string   `json:"adset_id"`
	AdID        string   `json:"ad_id"`
	DateStart   string   `json:"date_start"`
	Hourly      string   `json:"hourly_stats_aggregated_by_advertiser_time_zone"`
	Spend       string   `json:"spend"`
	Impressions string   `json:"impressions"`
	Clicks      string   `json:"clicks"`
	Reach       string   `json:"reach"`
	Actions     []action `json:"actions"`
	Plays       []action `json:"video_play_actions"`
	P75         []action `json:"video_p75_watched_actions"`
}

const insightFields = "campaign_id,adset_id,ad_id,spend,impressions,clicks,reach,actions,video_play_actions,video_p75_watched_actions"

// Insights reads ad-level insights, one row per local day (or hour) of the account.
func (c *Connector) Insights(ctx context.Context, since, until string, g adsync.Grain) ([]adsync.Insight, error) {
	tr, _ := json.Marshal(map[string]string{"since": since, "until": until})
	q := url.Values{"level": {"ad"}, "time_increment": {"1"}, "time_range": {string(tr)}, "fields": {insightFields}}
	if g == adsync.GrainHour {
		q.Set("breakdowns", "hourly_stats_aggregated_by_advertiser_time_zone")
	}
	rows, err := list[insightRow](ctx, c, "insights", q)
	if err != nil {
		return nil, err
	}
	out := make([]adsync.Insight, 0, len(rows))
	for _, r := range rows {
		in, err := r.insight()
		if err != nil {
			return nil, fmt.Errorf("alpha_ads: insights of ad %s on %s: %w", r.AdID, r.DateStart, err)
		}
		out = append(out, in)
	}
	return out, nil
}

func (r insightRow) insight() (adsync.Insight, error) {
	in := adsync.Insight{AdID: r.AdID, AdsetID: r.AdsetID, CampaignID: r.CampaignID, Date: r.DateStart, Hour: adsync.DayBucket}
	var err error
	if r.Hourly != "" {
		h, ok := strings.CutSuffix(strings.SplitN(r.Hourly, " ", 2)[0], ":00:00")
		if in.Hour, err = strconv.Atoi(h); !ok || err != nil {
			return in, fmt.Errorf("bad hour %q", r.Hourly)
		}
	}
	if in.Metrics[facts.Spend], err = adsync.ParseAmount(r.Spend); err != nil {
		return in, err
	}
	for _, f := range []struct {
		dst *int64
		v   string
	}{
		{&in.Metrics[facts.Impressions], r.Impressions}, {&in.Metrics[facts.Clicks], r.Clicks}, {&in.Metrics[facts.Reach], r.Reach},
		{&in.Metrics[facts.VideoViews3s], videoViews(r.Actions)}, {&in.Metrics[facts.VideoPlays], videoViews(r.Plays)}, {&in.Metrics[facts.VideoViewsP75], videoViews(r.P75)},
	} {
		if *f.dst, err = adsync.ParseCount(f.v); err != nil {
			return in, err
		}
	}
	return in, nil
}

// videoViews is the value of the video_view action of a list.
func videoViews(list []action) string {
	for _, a := range list {
		if a.ActionType == "video_view" {
			return a.Value
		}
	}
	return ""
}
