package beta

import (
	"context"
	"strconv"

	"mtk/adsync"
)

type ref struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

type objectRow struct {
	Campaign       ref `json:"campaign"`
	CampaignBudget struct {
		ID           string `json:"id"`
		AmountMicros string `json:"amountMicros"`
	} `json:"campaignBudget"`
	AdGroup   ref `json:"adGroup"`
	AdGroupAd struct {
		Status string `json:"status"`
		Ad     ref    `json:"ad"`
	} `json:"adGroupAd"`
}

// status maps ENABLED/PAUSED to ACTIVE/PAUSED.
func status(s string) string {
	if s == "ENABLED" {
		return adsync.StatusActive
	}
	return s
}

// Objects lists campaigns (with their daily budgets), ad groups and ads.
func (c *Connector) Objects(ctx context.Context) ([]adsync.Object, error) {
	var out []adsync.Object
	camps, err := search[objectRow](ctx, c, "SELECT campaign.id, campaign.name, campaign.status, campaign_budget.id, "+
		"campaign_budget.amount_micros FROM campaign ORDER BY campaign.id")
	if err != nil {
		return nil, err
	}
	for _, r := range camps {
		o := adsync.Object{Level: adsync.LevelCampaign, ID: r.Campaign.ID, ParentID: c.customer, CampaignID: r.Campaign.ID,
			Name: r.Campaign.Name, Status: status(r.Campaign.Status)}
		if r.CampaignBudget.ID != "" {
			if o.BudgetMicros, err = strconv.ParseInt(r.CampaignBudget.AmountMicros, 10, 64); err != nil {
				return nil, err
			}
			o.BudgetKind, o.BudgetRef = adsync.BudgetDaily, r.CampaignBudget.ID
		}
		out = append(out, o)
	}
	groups, err := search[objectRow](ctx, c, "SELECT ad_group.id, ad_group.name, ad_group.status, campaign.id FROM ad_group ORDER BY ad_group.id")
	if err != nil {
		return nil, err
	}
	for _, r := range groups {
		out = append(out, adsync.Object{Level: adsync.LevelAdset, ID: r.AdGroup.ID, ParentID: r.Campaign.ID,
			CampaignID: r.Campaign.ID, Name: r.AdGroup.Name, Status: status(r.AdGroup.Status)})
	}
	ads, err := search[objectRow](ctx, c, "SELECT ad_group_ad.ad.id, ad_group_ad.ad.name, ad_group_ad.status, ad_group.id, "+
		"campaign.id FROM ad_group_ad ORDER BY ad_group_ad.ad.id")
	if err != nil {
		return nil, err
	}
	for _, r := range ads {
		out = append(out, adsync.Object{Level: adsync.LevelAd, ID: r.AdGroupAd.Ad.ID, ParentID: r.AdGroup.ID,
			CampaignID: r.Campaign.ID, Name: r.AdGroupAd.Ad.Name, Status: status(r.AdGroupAd.Status)})
	}
	return out, nil
}
