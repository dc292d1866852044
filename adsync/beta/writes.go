package beta

import (
	"context"
	"fmt"

	"mtk/adsync"
	"mtk/facts"
)

// maxOperations is the most operations one mutate takes.
const maxOperations = 10000

type operation struct {
	Update     map[string]string `json:"update"`
	UpdateMask string            `json:"updateMask"`
}

type mutateAnswer struct {
	PartialFailureError *struct {
		Details []failure `json:"details"`
	} `json:"partialFailureError"`
}

// SetStatus changes statuses (ENABLED/PAUSED on the wire) with partial failure.
func (c *Connector) SetStatus(ctx context.Context, level string, updates []adsync.Update) []error {
	resource := map[string]string{adsync.LevelCampaign: "campaigns", adsync.LevelAdset: "adGroups", adsync.LevelAd: "adGroupAds"}[level]
	if resource == "" {
		return adsync.ErrorEach(len(updates), adsync.UnknownLevel(level))
	}
	return c.mutate(ctx, resource, updates, func(u adsync.Update) operation {
		id := u.Object.ID
		if level == adsync.LevelAd {
			id = u.Object.ParentID + "~" + u.Object.ID
		}
		st := u.Status
		if st == adsync.StatusActive {
			st = "ENABLED"
		}
		return operation{Update: map[string]string{"resourceName": "customers/" + c.customer + "/" + resource + "/" + id, "status": st}, UpdateMask: "status"}
	})
}

// SetBudget changes campaigns' daily budgets through their campaign budget resources.
func (c *Connector) SetBudget(ctx context.Context, level string, updates []adsync.Update) []error {
	if level != adsync.LevelCampaign {
		return adsync.ErrorEach(len(updates), adsync.UnknownLevel(level))
	}
	return c.mutate(ctx, "campaignBudgets", updates, func(u adsync.Update) operation {
		return operation{Update: map[string]string{
			"resourceName": "customers/" + c.customer + "/campaignBudgets/" + u.Object.BudgetRef,
			"amountMicros": fmt.Sprint(u.Budget * facts.MicrosPerMinor),
		}, UpdateMask: "amount_micros"}
	})
}

func (c *Connector) mutate(ctx context.Context, resource string, updates []adsync.Update, op func(adsync.Update) operation) []error {
	errs := make([]error, len(updates))
	for start := 0; start < len(updates); start += maxOperations {
		chunk := updates[start:min(start+maxOperations, len(updates))]
		ops := make([]operation, len(chunk))
		for i, u := range chunk {
			ops[i] = op(u)
		}
		var ans mutateAnswer
		if err := c.post(ctx, "/"+resource+":mutate", map[string]any{"operations": ops, "partialFailure": true}, &ans); err != nil {
			copy(errs[start:], adsync.ErrorEach(len(chunk), err))
			continue
		}
		if ans.PartialFailureError == nil {
			continue
		}
		for _, d := range ans.PartialFailureError.Details {
			for _, fe := range d.Errors {
				for _, p := range fe.Location.Path {
					if p.Field == "operations" && p.Index != nil && *p.Index < len(chunk) {
						errs[start+*p.Index] = fmt.Errorf("beta_ads: %s", fe.Message)
					}
				}
			}
		}
	}
	return errs
}
