// Package dashmix is the dashboard's query mix that the benchmarks send: what a dashboard asks
// when it opens.
package dashmix

import (
	"time"

	"mtk/engine"
)

// Query is one request of the dashboard mix.
type Query struct {
	Name  string
	About string
	Input engine.QueryInput
}

// Mix is the query benchmark's fixed mix, over the last days of the generated data (last is
// its last local day): what a dashboard asks when it opens.
func Mix(projectID string, last time.Time) []Query {
	day := func(back int) string { return last.AddDate(0, 0, -back).Format("2006-01-02") }
	in := func(fields []string, start, end, gran string) engine.QueryInput {
		return engine.QueryInput{ProjectID: projectID, Fields: fields,
			Time: &engine.TimeSpec{Start: start, End: end, Granularity: gran}}
	}
	daily := in([]string{"spend", "impressions", "clicks", "ctr", "cpc", "roas"}, day(29), day(0), "day")
	daily.Metadata = &engine.Metadata{Level: "campaign"}
	hourly := in([]string{"spend", "impressions", "clicks", "cpm"}, day(6), day(0), "hour")
	quarter := in([]string{"page_views", "leads", "tx_count", "tx_revenue"}, day(0), day(0), "15min")
	monthly := in([]string{"spend", "impressions", "ctr", "cpc"}, day(89), day(0), "month")
	monthly.Metadata = &engine.Metadata{Level: "ad"}
	monthly.Filters = []engine.Filter{{Member: "ad_name", Operator: "contains", Values: []string{"Creative 1_"}}}
	usd := in([]string{"spend", "tx_revenue", "roas", "cpm"}, day(29), day(0), "")
	usd.Metadata = &engine.Metadata{ConvertToCurrency: "USD"}
	return []Query{
		{"day_30d_campaign", "30 days daily by campaign", daily},
		{"hour_7d_totals", "7 days hourly totals", hourly},
		{"15min_24h", "24 hours at 15 minutes", quarter},
		{"month_90d_ad_name", "90 days monthly by ad, ad name filter", monthly},
		{"totals_30d_usd", "30 days totals converted to USD", usd},
	}
}
