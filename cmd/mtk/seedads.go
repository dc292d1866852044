package main

import (
	"context"
	"hash/fnv"
	"math/rand"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/adsync"
	"mtk/platform"
)

// demoAd is a synced ad as the demo's shop sees it: the UTM its links carry, its account's
// currency, its clicks and spend by local date as synced, and a made-up performance: how many
// of its clicks buy, and what the buyers spend against what the ad costs (ROAS).
type demoAd struct {
	id       string
	utm      map[string]string
	currency string
	days     map[string]adDay
	// conversion is the share of clicks that order; roas what approved orders return per unit
	// of spend, before refunds.
	conversion, roas float64
}

// seeded is a random source that depends only on id.
func seeded(id string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(id))
	return rand.New(rand.NewSource(int64(h.Sum64())))
}

// adDay is an ad's synced clicks and spend (micros of its currency) of one local date.
type adDay struct {
	clicks, spendMicros int64
}

// demoAds lists the synced ads of the demo's network connections with their daily clicks and
// spend. The performance of an ad depends only on its and its campaign's ids: most campaigns
// return 1.5 to 4 times their spend, one in five loses money; 0.7 to 2.1 % of clicks order (the shop's unpaid sources sell besides).
func demoAds(ctx context.Context, ch driver.Conn, store *adsync.Store, projectID string, conns []platform.Connection) ([]demoAd, error) {
	var out []demoAd
	for _, c := range conns {
		if c.SourceID == nil {
			continue
		}
		objs, err := store.Objects(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(objs))
		for id := range objs {
			ids = append(ids, id)
		}
		slices.Sort(ids) // a stable order: the traffic is the same on every machine
		for _, id := range ids {
			ad := objs[id]
			if ad.Level != adsync.LevelAd {
				continue
			}
			set, camp := objs[ad.ParentID], objs[ad.CampaignID]
			r, campaign := seeded(ad.ID), seeded(camp.ID)
			// A campaign's ads share its return, within ±20 %, so that campaigns differ.
			roas := 1.5 + campaign.Float64()*2.5
			if campaign.Intn(5) == 0 {
				roas = 0.4 + campaign.Float64()*0.5
			}
			out = append(out, demoAd{id: ad.ID, days: map[string]adDay{}, conversion: 0.007 + r.Float64()*0.014,
				roas: roas * (0.8 + 0.4*r.Float64()),
				utm: map[string]string{"utm_source": c.Kind, "utm_campaign": camp.Name + "|" + camp.ID,
					"utm_medium": set.Name + "|" + set.ID, "utm_content": ad.Name + "|" + ad.ID}})
		}
	}
	at := map[string]int{}
	for i, a := range out {
		at[a.id] = i
	}
	rows, err := ch.Query(ctx, `SELECT ad_id, any(currency), day, toInt64(sum(clicks)), toInt64(sum(spend)) FROM facts_daily
		WHERE project_id = ? AND ad_id != '' GROUP BY ad_id, day`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id, currency string
		var day time.Time
		var d adDay
		if err := rows.Scan(&id, &currency, &day, &d.clicks, &d.spendMicros); err != nil {
			return nil, err
		}
		if i, ok := at[id]; ok {
			out[i].currency = currency
			out[i].days[day.Format(time.DateOnly)] = d
		}
	}
	return out, rows.Err()
}
