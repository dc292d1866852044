package gamma

import (
	"context"
	"net/http"

	"mtk/adsync"
	"mtk/facts"
)

// SetStatus changes statuses (ENABLE/DISABLE on the wire) 20 ids at a time. The network takes a
// batch all or none, so a refused batch is retried id by id to tell which ids fail.
func (c *Connector) SetStatus(ctx context.Context, level string, updates []adsync.Update) []error {
	target, ok := map[string][2]string{
		adsync.LevelCampaign: {"campaign/status/update/", "campaign_ids"},
		adsync.LevelAdset:    {"adgroup/status/update/", "adgroup_ids"},
		adsync.LevelAd:       {"ad/status/update/", "ad_ids"},
	}[level]
	path, idsKey := target[0], target[1]
	if !ok {
		return adsync.ErrorEach(len(updates), adsync.UnknownLevel(level))
	}
	// One request per target status: a batch carries one operation_status.
	errs := make([]error, len(updates))
	for _, st := range []string{adsync.StatusActive, adsync.StatusPaused} {
		var idx []int
		for i, u := range updates {
			if u.Status == st {
				idx = append(idx, i)
			}
		}
		wire := map[string]string{adsync.StatusActive: "ENABLE", adsync.StatusPaused: "DISABLE"}[st]
		c.inBatches(idx, errs, func(part []int) error {
			ids := make([]string, len(part))
			for j, i := range part {
				ids[j] = updates[i].Object.ID
			}
			var out map[string]any
			return c.call(ctx, http.MethodPost, path, nil, map[string]any{
				"advertiser_id": c.advertiser, idsKey: ids, "operation_status": wire}, &out)
		})
	}
	return errs
}

// SetBudget changes budgets in major units: campaigns one per request, ad groups 20 at a time.
func (c *Connector) SetBudget(ctx context.Context, level string, updates []adsync.Update) []error {
	errs := make([]error, len(updates))
	idx := make([]int, len(updates))
	for i := range idx {
		idx[i] = i
	}
	switch level {
	case adsync.LevelCampaign:
		for i, u := range updates {
			var out map[string]any
			errs[i] = c.call(ctx, http.MethodPost, "campaign/update/", nil, map[string]any{
				"advertiser_id": c.advertiser, "campaign_id": u.Object.ID, "budget": major(u.Budget)}, &out)
		}
	case adsync.LevelAdset:
		c.inBatches(idx, errs, func(part []int) error {
			items := make([]map[string]string, len(part))
			for j, i := range part {
				items[j] = map[string]string{"adgroup_id": updates[i].Object.ID, "budget": major(updates[i].Budget)}
			}
			var out map[string]any
			return c.call(ctx, http.MethodPost, "adgroup/budget/update/", nil, map[string]any{
				"advertiser_id": c.advertiser, "budget": items}, &out)
		})
	default:
		return adsync.ErrorEach(len(updates), adsync.UnknownLevel(level))
	}
	return errs
}

// major writes minor units as a major-unit string.
func major(minor int64) string { return adsync.MicrosToMajor(minor * facts.MicrosPerMinor) }

// inBatches sends idx in batches of 20; a failed batch of several is retried one by one.
func (c *Connector) inBatches(idx []int, errs []error, send func([]int) error) {
	for start := 0; start < len(idx); start += batchSize {
		part := idx[start:min(start+batchSize, len(idx))]
		err := send(part)
		if err == nil {
			continue
		}
		if len(part) == 1 {
			errs[part[0]] = err
			continue
		}
		for _, i := range part {
			errs[i] = send([]int{i})
		}
	}
}
