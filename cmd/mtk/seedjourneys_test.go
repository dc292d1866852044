package main

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// assertDemoJourneys checks that the demo's buyers from ads touched several ads before buying,
// across networks and beyond a week, and that the attribution models then credit the campaigns
// differently. query answers the demo's last 30 days with extra members of the request. It logs
// the top campaign's revenue under every model and date, for the attribution issue's note.
func assertDemoJourneys(t *testing.T, projectID string, query func(extra string) []map[string]any) {
	t.Helper()
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := openStores(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// Of the leads that ordered after a touch: how many touched two ads or more, two networks,
	// over more than 7 days; the longest journey.
	var buyers, twoAds, twoNetworks, overAWeek, longest uint64
	if err := st.ch.QueryRow(ctx, `SELECT count(), countIf(ads >= 2), countIf(sources >= 2), countIf(span > 7 * 86400), max(touches)
		FROM (SELECT lead_id, uniqExact(ad_id) AS ads, uniqExact(source) AS sources, count() AS touches,
				toInt64(max(ts)) - toInt64(min(ts)) AS span
			FROM journeys_by_lead WHERE project_id = ? AND kind = 'touch' AND ad_id != ''
			AND lead_id IN (SELECT lead_id FROM journeys_by_lead WHERE project_id = ? AND kind = 'order')
			GROUP BY lead_id)`, projectID, projectID).Scan(&buyers, &twoAds, &twoNetworks, &overAWeek, &longest); err != nil {
		t.Fatal(err)
	}
	if buyers < 100 || twoAds*100 < buyers*40 || twoNetworks*100 < buyers*25 || overAWeek*100 < buyers*15 || longest < 5 {
		t.Errorf("of %d buyers with a touch: %d touched 2 ads or more, %d 2 networks, %d over a week; at most %d touches",
			buyers, twoAds, twoNetworks, overAWeek, longest)
	}

	// Campaign revenue by model and date: the top campaign by reported revenue, and whether
	// some campaign's revenue differs between reported, first_click and linear.
	revenue := map[string]map[string]float64{} // "model date" → campaign → tx_revenue
	key := func(model, date string) string { return model + " " + date }
	for _, model := range []string{"reported", "last_click", "first_click", "linear", "position_based", "time_decay"} {
		for _, date := range []string{"conversion", "click"} {
			m := map[string]float64{}
			for _, c := range query(fmt.Sprintf(`,"metadata":{"level":"campaign","attribution":{"model":%q,"date":%q}}`, model, date)) {
				if id, ok := c["campaign_id"].(string); ok {
					m[id] = c["tx_revenue"].(float64)
				}
			}
			revenue[key(model, date)] = m
		}
	}
	top, differs := "", 0
	for id, r := range revenue[key("reported", "conversion")] {
		if top == "" || r > revenue[key("reported", "conversion")][top] {
			top = id
		}
		first, linear := revenue[key("first_click", "conversion")][id], revenue[key("linear", "conversion")][id]
		if first != r && linear != r && first != linear {
			differs++
		}
	}
	if differs == 0 {
		t.Errorf("no campaign's revenue differs between reported, first_click and linear: %v", revenue)
	}
	line := fmt.Sprintf("campaign %s, tx_revenue over %s..%s by model (conversion date / click date):", top,
		time.Now().AddDate(0, 0, -30).Format(time.DateOnly), time.Now().AddDate(0, 0, -1).Format(time.DateOnly))
	for _, model := range []string{"reported", "last_click", "first_click", "linear", "position_based", "time_decay"} {
		line += fmt.Sprintf(" %s %.2f / %.2f;", model, revenue[key(model, "conversion")][top], revenue[key(model, "click")][top])
	}
	t.Logf("%s %d campaigns differ between reported, first_click and linear", line, differs)
}
