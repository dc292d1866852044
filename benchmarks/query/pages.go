package main

import (
	"encoding/json"
	"time"

	"mtk/engine"
)

// A dashboard page is a fixed set of queries over one project and one range, the tiles an ad
// dashboard shows when it opens. Ranges are complete local days ending yesterday ("last 7 days"
// as the networks' own interfaces mean it, the API's time.range last_N_days); today has a tile
// of its own, by hour.

// tile is one query of a page.
type tile struct {
	Name  string
	About string
	// today: the tile reads today whatever the page's range.
	today bool
	input func(projectID string, days int, today time.Time) engine.QueryInput
}

// rangeDays are the ranges a viewer chooses among, with the same chance each.
var rangeDays = []int{7, 30, 90}

// lastDays is the named range of the last n complete days.
func lastDays(n int) *engine.TimeSpec {
	return &engine.TimeSpec{Range: map[int]string{7: "last_7_days", 30: "last_30_days", 90: "last_90_days"}[n]}
}

var cardFields = []string{"spend", "impressions", "clicks", "ctr", "cpc", "tx_revenue", "roas"}

// tiles are the page, in the order a browser asks them.
var tiles = []tile{
	{Name: "cards", About: "totals of the range: spend, impressions, clicks, ctr, cpc, tx_revenue, roas",
		input: func(id string, n int, _ time.Time) engine.QueryInput {
			return engine.QueryInput{ProjectID: id, Fields: cardFields, Time: lastDays(n)}
		}},
	{Name: "cards_previous", About: "the same totals over the n days before the range (the cards' change figures)",
		input: func(id string, n int, today time.Time) engine.QueryInput {
			day := func(back int) string { return today.AddDate(0, 0, -back).Format(time.DateOnly) }
			return engine.QueryInput{ProjectID: id, Fields: cardFields,
				Time: &engine.TimeSpec{Start: day(2 * n), End: day(n + 1)}}
		}},
	{Name: "cards_usd", About: "spend, tx_revenue, roas, cpm of the range converted to USD",
		input: func(id string, n int, _ time.Time) engine.QueryInput {
			return engine.QueryInput{ProjectID: id, Fields: []string{"spend", "tx_revenue", "roas", "cpm"}, Time: lastDays(n),
				Metadata: &engine.Metadata{ConvertToCurrency: "USD"}}
		}},
	{Name: "daily", About: "the range by day: spend, impressions, clicks, tx_revenue, roas",
		input: func(id string, n int, _ time.Time) engine.QueryInput {
			ts := lastDays(n)
			ts.Granularity = "day"
			return engine.QueryInput{ProjectID: id, Fields: []string{"spend", "impressions", "clicks", "tx_revenue", "roas"}, Time: ts}
		}},
	{Name: "campaigns", About: "table by campaign, most spend first: spend, impressions, clicks, ctr, cpc, tx_count, tx_revenue, roas",
		input: func(id string, n int, _ time.Time) engine.QueryInput {
			return engine.QueryInput{ProjectID: id, Time: lastDays(n),
				Fields:   []string{"spend", "impressions", "clicks", "ctr", "cpc", "tx_count", "tx_revenue", "roas"},
				Metadata: &engine.Metadata{Level: "campaign"}, Order: engine.Order{{Field: "spend", Direction: "desc"}}}
		}},
	{Name: "ads", About: "table by ad, the 50 with most spend: spend, impressions, clicks, ctr, cpc, roas",
		input: func(id string, n int, _ time.Time) engine.QueryInput {
			limit := 50
			return engine.QueryInput{ProjectID: id, Time: lastDays(n), Limit: &limit,
				Fields:   []string{"spend", "impressions", "clicks", "ctr", "cpc", "roas"},
				Metadata: &engine.Metadata{Level: "ad"}, Order: engine.Order{{Field: "spend", Direction: "desc"}}}
		}},
	{Name: "accounts", About: "spend, clicks, tx_revenue, roas by ad account (one per network)",
		input: func(id string, n int, _ time.Time) engine.QueryInput {
			return engine.QueryInput{ProjectID: id, Time: lastDays(n), Fields: []string{"spend", "clicks", "tx_revenue", "roas"},
				Metadata: &engine.Metadata{Level: "account"}}
		}},
	{Name: "today_hourly", About: "today by hour: spend, impressions, clicks, page_views, leads, tx_count, tx_revenue", today: true,
		input: func(id string, _ int, _ time.Time) engine.QueryInput {
			return engine.QueryInput{ProjectID: id, Time: &engine.TimeSpec{Range: "today", Granularity: "hour"},
				Fields: []string{"spend", "impressions", "clicks", "page_views", "leads", "tx_count", "tx_revenue"}}
		}},
}

// page is one project's page at one range: its tiles' inputs and bodies.
type page struct {
	inputs []engine.QueryInput
	bodies [][]byte
}

// pageSet is every page of the run: [project][range].
type pageSet [][]page

// buildPages makes the pages of every project at every range, on the local date today (the
// previous period's dates are fixed when the run starts; a run never crosses midnight).
func buildPages(t *dashTenants, today time.Time) (pageSet, error) {
	set := make(pageSet, len(t.projects))
	for i, p := range t.projects {
		for _, n := range rangeDays {
			var pg page
			for _, tl := range tiles {
				in := tl.input(p.project.ID, n, today)
				b, err := json.Marshal(in)
				if err != nil {
					return nil, err
				}
				pg.inputs = append(pg.inputs, in)
				pg.bodies = append(pg.bodies, b)
			}
			set[i] = append(set[i], pg)
		}
	}
	return set, nil
}
