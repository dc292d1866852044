package gamma

import (
	"context"
	"net/url"

	"mtk/adsync"
)

type item struct {
	CampaignID   string `json:"campaign_id"`
	CampaignName string `json:"campaign_name"`
	AdgroupID    string `json:"adgroup_id"`
	AdgroupName  string `json:"adgroup_name"`
	AdID         string `json:"ad_id"`
	AdName       string `json:"ad_name"`
	Status       string `json:"operation_status"`
	BudgetMode   string `json:"budget_mode"`
	Budget       string `json:"budget"`
}

// status maps ENABLE/DISABLE to ACTIVE/PAUSED.
func status(s string) string {
	if s == "ENABLE" {
		return adsync.StatusActive
	}
	return adsync.StatusPaused
}

// Objects lists campaigns, ad groups and ads with their budgets.
func (c *Connector) Objects(ctx context.Context) ([]adsync.Object, error) {
	var out []adsync.Object
	for _, e := range []struct{ path, level string }{
		{"campaign/get/", adsync.LevelCampaign}, {"adgroup/get/", adsync.LevelAdset}, {"ad/get/", adsync.LevelAd},
	} {
		items, err := list[item](ctx, c, e.path, url.Values{})
		if err != nil {
			return nil, err
		}
		for _, it := range items {
			o := adsync.Object{Level: e.level, Status: status(it.Status), CampaignID: it.CampaignID}
			switch e.level {
			case adsync.LevelCampaign:
				o.ID, o.Name, o.ParentID = it.CampaignID, it.CampaignName, c.advertiser
			case adsync.LevelAdset:
				o.ID, o.Name, o.ParentID = it.AdgroupID, it.AdgroupName, it.CampaignID
			default:
				o.ID, o.Name, o.ParentID = it.AdID, it.AdName, it.AdgroupID
			}
			if kind := map[string]string{"BUDGET_MODE_DAY": adsync.BudgetDaily, "BUDGET_MODE_TOTAL": adsync.BudgetLifetime}[it.BudgetMode]; kind != "" {
				if o.BudgetMicros, err = adsync.MajorToMicros(it.Budget); err != nil {
					return nil, err
				}
				o.BudgetKind = kind
			}
			out = append(out, o)
		}
	}
	return out, nil
}
