package adsim

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// gamma_ads reporting: GET /gamma/open_api/v1.3/report/integrated/get/.

var gammaLevels = map[string]Level{
	"AUCTION_ADVERTISER": LevelAccount, "AUCTION_CAMPAIGN": LevelCampaign,
	"AUCTION_ADGROUP": LevelAdSet, "AUCTION_AD": LevelAd,
}

var gammaIDDimension = map[Level]string{
	LevelAccount: "advertiser_id", LevelCampaign: "campaign_id", LevelAdSet: "adgroup_id", LevelAd: "ad_id",
}

// gammaMetricNames are the metrics served: delivery numbers, then attributes.
var gammaMetricNames = []string{
	"spend", "impressions", "clicks", "video_play_actions", "video_watched_2s", "video_views_p75",
	"currency", "advertiser_name", "campaign_id", "campaign_name", "adgroup_id", "adgroup_name", "ad_name",
}

func (s *Sim) gammaReport(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := gammaDialect{}
	q := r.URL.Query()
	fail := func(format string, args ...any) { d.writeError(w, errorf(errInvalid, format, args...), trace) }
	if !gammaAdvertiser(w, q.Get("advertiser_id"), a, trace) {
		return
	}
	if rt := q.Get("report_type"); rt != "BASIC" {
		fail("report_type: the simulator serves BASIC reports only.")
		return
	}
	level, ok := gammaLevels[q.Get("data_level")]
	if !ok {
		fail("data_level: Must be one of AUCTION_ADVERTISER, AUCTION_CAMPAIGN, AUCTION_ADGROUP, AUCTION_AD.")
		return
	}
	var dims, metrics []string
	if err := json.Unmarshal([]byte(q.Get("dimensions")), &dims); err != nil || len(dims) == 0 {
		fail(`dimensions: want a JSON array, e.g. ["ad_id","stat_time_day"].`)
		return
	}
	metrics = []string{"spend", "impressions"}
	if m := q.Get("metrics"); m != "" {
		if err := json.Unmarshal([]byte(m), &metrics); err != nil {
			fail(`metrics: want a JSON array, e.g. ["spend","impressions"].`)
			return
		}
	}
	g := grouping{level: level}
	for _, dim := range dims {
		switch dim {
		case gammaIDDimension[level]:
		case "stat_time_day":
			g.byDay = true
		case "stat_time_hour":
			g.byDay, g.byHour = true, true
		default:
			fail("dimensions: %q is not valid with data_level %s (want %s and at most one of stat_time_day, stat_time_hour).",
				dim, q.Get("data_level"), gammaIDDimension[level])
			return
		}
	}
	if !slices.Contains(dims, gammaIDDimension[level]) || (slices.Contains(dims, "stat_time_day") && g.byHour) {
		fail("dimensions: need %s and at most one of stat_time_day, stat_time_hour.", gammaIDDimension[level])
		return
	}
	for _, m := range metrics {
		if !slices.Contains(gammaMetricNames, m) {
			fail("metrics: %q is not a metric the simulator serves.", m)
			return
		}
	}
	since, err1 := parseDay(q.Get("start_date"))
	until, err2 := parseDay(q.Get("end_date"))
	if err1 != nil || err2 != nil || since > until {
		fail("start_date and end_date are required, as YYYY-MM-DD, with start_date not after end_date.")
		return
	}
	page, size, e := gammaPaging(q)
	if e != nil {
		d.writeError(w, e, trace)
		return
	}
	rows := s.rows(a, since, until, g, s.now(), false)
	list := make([]map[string]any, len(rows))
	for i, row := range rows {
		list[i] = gammaReportRow(a, row, level, g, metrics)
	}
	gammaOKBody(w, trace, gammaPage(list, page, size))
}

// gammaReportRow renders one row: dimensions and metrics, every value a string.
func gammaReportRow(a *account, r row, level Level, g grouping, metrics []string) map[string]any {
	dims := map[string]string{}
	if r.obj != nil {
		dims[gammaIDDimension[level]] = r.obj.id
	} else {
		dims["advertiser_id"] = a.id
	}
	switch {
	case g.byHour:
		dims["stat_time_hour"] = r.day.String() + " " + pad2(r.hour) + ":00:00"
	case g.byDay:
		dims["stat_time_day"] = r.day.String() + " 00:00:00"
	}
	num := func(v int64) string { return strconv.FormatInt(v, 10) }
	ms := map[string]string{}
	for _, m := range metrics {
		var o *object
		if r.obj != nil {
			o = r.obj.ancestor(map[string]Level{"campaign": LevelCampaign, "adgroup": LevelAdSet, "ad": LevelAd}[strings.Split(m, "_")[0]])
		}
		switch m {
		case "spend":
			ms[m] = formatMinor(r.m.Spend, a.exp)
		case "impressions":
			ms[m] = num(r.m.Impressions)
		case "clicks":
			ms[m] = num(r.m.Clicks)
		case "video_play_actions":
			ms[m] = num(r.m.VideoPlays)
		case "video_watched_2s":
			ms[m] = num(r.m.VideoViews3s)
		case "video_views_p75":
			ms[m] = num(r.m.VideoViewsP75)
		case "currency":
			ms[m] = a.currency
		case "advertiser_name":
			ms[m] = a.name
		case "campaign_id", "adgroup_id":
			if o != nil {
				ms[m] = o.id
			}
		case "campaign_name", "adgroup_name", "ad_name":
			if o != nil {
				ms[m] = o.title()
			}
		}
	}
	return map[string]any{"dimensions": dims, "metrics": ms}
}

func pad2(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}
