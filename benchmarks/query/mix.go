package main

import (
	"fmt"
	"time"

	"mtk/engine"
)

// query is one request of the dashboard mix.
type query struct {
	Name  string
	About string
	Input engine.QueryInput
}

// dashboardMix is the fixed mix of the issue, over the last days of the generated data (last is
// its last local day): what a dashboard asks when it opens.
func dashboardMix(projectID string, last time.Time) []query {
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
	return []query{
		{"day_30d_campaign", "30 days daily by campaign", daily},
		{"hour_7d_totals", "7 days hourly totals", hourly},
		{"15min_24h", "24 hours at 15 minutes", quarter},
		{"month_90d_ad_name", "90 days monthly by ad, ad name filter", monthly},
		{"totals_30d_usd", "30 days totals converted to USD", usd},
	}
}

// mixName is the row of the whole mix: every client cycles through all the queries.
const mixName = "mix"

// workload is what a cell of the table sends: one query, or the whole mix.
type workload struct {
	Name    string
	Queries []int // indexes into the mix
}

func workloads(mix []query) []workload {
	var ws []workload
	all := make([]int, len(mix))
	for i, q := range mix {
		ws = append(ws, workload{Name: q.Name, Queries: []int{i}})
		all[i] = i
	}
	return append(ws, workload{Name: mixName, Queries: all})
}

// checkDates reports a mix that reaches before the data.
func checkDates(days int) error {
	if days < 90 {
		return fmt.Errorf("-days %d: the mix reads 90 days; generate at least 90", days)
	}
	return nil
}
