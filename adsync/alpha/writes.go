package alpha

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"mtk/adsync"
)

type batchItem struct {
	Method      string `json:"method"`
	RelativeURL string `json:"relative_url"`
	Body        string `json:"body"`
}

type batchAnswer struct {
	Code int    `json:"code"`
	Body string `json:"body"`
}

// SetStatus changes statuses through batches of at most 50 requests.
func (c *Connector) SetStatus(ctx context.Context, level string, updates []adsync.Update) []error {
	return c.batch(ctx, updates, func(u adsync.Update) string {
		return url.Values{"status": {u.Status}}.Encode()
	})
}

// SetBudget changes daily or lifetime budgets (minor units), whichever the object holds.
func (c *Connector) SetBudget(ctx context.Context, level string, updates []adsync.Update) []error {
	if level == adsync.LevelAd {
		return adsync.ErrorEach(len(updates), adsync.UnknownLevel(level))
	}
	return c.batch(ctx, updates, func(u adsync.Update) string {
		field := "daily_budget"
		if u.Object.BudgetKind == adsync.BudgetLifetime {
			field = "lifetime_budget"
		}
		return url.Values{field: {fmt.Sprint(u.Budget)}}.Encode()
	})
}

func (c *Connector) batch(ctx context.Context, updates []adsync.Update, body func(adsync.Update) string) []error {
	errs := make([]error, len(updates))
	for start := 0; start < len(updates); start += batchSize {
		chunk := updates[start:min(start+batchSize, len(updates))]
		items := make([]batchItem, len(chunk))
		for i, u := range chunk {
			items[i] = batchItem{Method: http.MethodPost, RelativeURL: u.Object.ID, Body: body(u)}
		}
		b, _ := json.Marshal(items)
		var answers []batchAnswer
		err := c.send(ctx, http.MethodPost, c.base+"/", url.Values{"batch": {string(b)}}, &answers)
		if err == nil && len(answers) != len(chunk) {
			err = fmt.Errorf("alpha_ads: batch answered %d items for %d", len(answers), len(chunk))
		}
		for i := range chunk {
			switch {
			case err != nil:
				errs[start+i] = err
			case answers[i].Code != http.StatusOK:
				errs[start+i] = decodeError(answers[i].Code, []byte(answers[i].Body))
			}
		}
	}
	return errs
}
