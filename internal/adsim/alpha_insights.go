package adsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// alpha_ads insights: GET /alpha/v19.0/act_<id>/insights.

const alphaHourly = "hourly_stats_aggregated_by_advertiser_time_zone"

// alphaInsightFields are the insights fields the simulator serves.
var alphaInsightFields = []string{
	"account_id", "account_name", "account_currency", "campaign_id", "campaign_name", "adset_id", "adset_name",
	"ad_id", "ad_name", "spend", "impressions", "clicks", "reach", "actions", "video_play_actions",
	"video_p75_watched_actions", "date_start", "date_stop",
}

func (s *Sim) alphaInsights(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := alphaDialect{}
	p := alphaParams(r)
	now := s.now()
	fail := func(format string, args ...any) { d.writeError(w, errorf(errInvalid, format, args...), trace) }
	level := Level(p.Get("level"))
	if level == "" {
		level = LevelAccount
	}
	if !slices.Contains([]Level{LevelAccount, LevelCampaign, LevelAdSet, LevelAd}, level) {
		fail("level must be one of account, campaign, adset, ad")
		return
	}
	since, until, err := alphaRange(p, a, s.start, now)
	if err != nil {
		fail("%v", err)
		return
	}
	g := grouping{level: level}
	switch p.Get("time_increment") {
	case "", "all_days":
	case "1":
		g.byDay = true
	default:
		fail("time_increment must be 1 or all_days in the simulator")
		return
	}
	switch p.Get("breakdowns") {
	case "":
	case alphaHourly:
		g.byHour = true
	default:
		fail("breakdowns: only %s is supported", alphaHourly)
		return
	}
	if p.Get("filtering") != "" || p.Get("time_ranges") != "" {
		fail("filtering and time_ranges are not supported by the simulator")
		return
	}
	fields := alphaFields(r, "spend,impressions")
	for _, f := range fields {
		if !slices.Contains(alphaInsightFields, f) {
			fail("%s is not valid for fields param", f)
			return
		}
	}
	rows := s.rows(a, since, until, g, now, false)
	data := make([]map[string]any, len(rows))
	for i, row := range rows {
		data[i] = alphaInsightRow(a, row, fields, g, until)
	}
	alphaPage(w, r, data, trace)
}

// alphaRange reads time_range (which wins) or date_preset (default last_30d) as local days.
func alphaRange(p url.Values, a *account, start, now int64) (day, day, error) {
	today := a.today(now)
	if tr := p.Get("time_range"); tr != "" {
		var v struct{ Since, Until string }
		if err := json.Unmarshal([]byte(tr), &v); err != nil || v.Since == "" || v.Until == "" {
			return 0, 0, fmt.Errorf(`time_range must be {"since":"YYYY-MM-DD","until":"YYYY-MM-DD"}`)
		}
		since, err1 := parseDay(v.Since)
		until, err2 := parseDay(v.Until)
		switch {
		case err1 != nil || err2 != nil:
			return 0, 0, fmt.Errorf("time_range: dates must be YYYY-MM-DD")
		case since > until:
			return 0, 0, fmt.Errorf("time_range: since must not be after until")
		}
		return since, until, nil
	}
	preset := p.Get("date_preset")
	switch preset {
	case "", "last_30d":
		return today - 30, today - 1, nil
	case "today":
		return today, today, nil
	case "yesterday":
		return today - 1, today - 1, nil
	case "maximum":
		first, _ := a.localOf(start)
		return first, today, nil
	}
	if n, ok := strings.CutSuffix(strings.TrimPrefix(preset, "last_"), "d"); ok && strings.HasPrefix(preset, "last_") {
		if k, err := strconv.Atoi(n); err == nil && slices.Contains([]int{3, 7, 14, 28, 90}, k) {
			return today - day(k), today - 1, nil
		}
	}
	return 0, 0, fmt.Errorf("date_preset %q is not supported (today, yesterday, last_3d, last_7d, last_14d, last_28d, last_30d, last_90d, maximum)", preset)
}

// alphaInsightRow renders one row with the asked fields, numbers as strings like the Graph API.
func alphaInsightRow(a *account, r row, fields []string, g grouping, until day) map[string]any {
	m := r.m
	out := map[string]any{"date_start": r.day.String(), "date_stop": until.String()}
	if g.byDay {
		out["date_stop"] = r.day.String()
	}
	if g.byHour {
		out[alphaHourly] = fmt.Sprintf("%02d:00:00 - %02d:59:59", r.hour, r.hour)
	}
	num := func(v int64) string { return strconv.FormatInt(v, 10) }
	action := func(v int64) []map[string]string {
		return []map[string]string{{"action_type": "video_view", "value": num(v)}}
	}
	var camp, adset, ad *object
	if r.obj != nil {
		camp, adset, ad = r.obj.ancestor(LevelCampaign), r.obj.ancestor(LevelAdSet), r.obj.ancestor(LevelAd)
	}
	for _, f := range fields {
		switch f {
		case "account_id":
			out[f] = strings.TrimPrefix(a.id, "act_")
		case "account_name":
			out[f] = a.name
		case "account_currency":
			out[f] = a.currency
		case "spend":
			out[f] = formatMinor(m.Spend, a.exp)
		case "impressions":
			out[f] = num(m.Impressions)
		case "clicks":
			out[f] = num(m.Clicks)
		case "reach":
			if !g.byHour {
				out[f] = num(m.Reach)
			}
		case "actions":
			if m.VideoViews3s > 0 {
				out[f] = action(m.VideoViews3s)
			}
		case "video_play_actions":
			if m.VideoPlays > 0 {
				out[f] = action(m.VideoPlays)
			}
		case "video_p75_watched_actions":
			if m.VideoViewsP75 > 0 {
				out[f] = action(m.VideoViewsP75)
			}
		case "campaign_id", "campaign_name", "adset_id", "adset_name", "ad_id", "ad_name":
			o := map[string]*object{"campaign": camp, "adset": adset, "ad": ad}[strings.SplitN(f, "_", 2)[0]]
			if o != nil && strings.HasSuffix(f, "_id") {
				out[f] = o.id
			} else if o != nil {
				out[f] = o.title()
			}
		}
	}
	return out
}
