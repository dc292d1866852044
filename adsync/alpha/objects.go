package alpha

import (
	"context"
	"net/url"
	"strconv"

	"mtk/adsync"
	"mtk/facts"
)

type node struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Status         string `json:"status"`
	CampaignID     string `json:"campaign_id"`
	AdsetID        string `json:"adset_id"`
	DailyBudget    string `json:"daily_budget"`
	LifetimeBudget string `json:"lifetime_budget"`
}

// Objects lists the account's campaigns, ad sets and ads.
func (c *Connector) Objects(ctx context.Context) ([]adsync.Object, error) {
	var out []adsync.Object
	for _, e := range []struct{ edge, level, fields string }{
		{"campaigns", adsync.LevelCampaign, "id,name,status,daily_budget,lifetime_budget"},
		{"adsets", adsync.LevelAdset, "id,name,status,campaign_id,daily_budget,lifetime_budget"},
		{"ads", adsync.LevelAd, "id,name,status,campaign_id,adset_id"},
	} {
		nodes, err := list[node](ctx, c, e.edge, url.Values{"fields": {e.fields}})
		if err != nil {
			return nil, err
		}
		for _, n := range nodes {
			o := adsync.Object{Level: e.level, ID: n.ID, Name: n.Name, Status: n.Status, CampaignID: n.CampaignID}
			switch e.level {
			case adsync.LevelCampaign:
				o.ParentID, o.CampaignID = c.account, n.ID
			case adsync.LevelAdset:
				o.ParentID = n.CampaignID
			case adsync.LevelAd:
				o.ParentID = n.AdsetID
			}
			if err := budget(&o, n); err != nil {
				return nil, err
			}
			out = append(out, o)
		}
	}
	return out, nil
}

// budget reads the budget a node holds, in minor units on the wire.
func budget(o *adsync.Object, n node) error {
	kind, v := "", ""
	switch {
	case n.DailyBudget != "" && n.DailyBudget != "0":
		kind, v = adsync.BudgetDaily, n.DailyBudget
	case n.LifetimeBudget != "" && n.LifetimeBudget != "0":
		kind, v = adsync.BudgetLifetime, n.LifetimeBudget
	default:
		return nil
	}
	minor, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return err
	}
	o.BudgetKind, o.BudgetMicros = kind, minor*facts.MicrosPerMinor
	return nil
}
