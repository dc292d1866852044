package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/engine/enginetest"
	"mtk/facts"
	"mtk/platform"
)

// demoDays is how much metric history the demo has.
const demoDays = 90

// adsimAccount is one simulated ad account as GET /_admin/accounts lists it.
type adsimAccount struct {
	Network     string `json:"network"`
	ID          string `json:"id"`
	Currency    string `json:"currency"`
	TimeZone    string `json:"time_zone"`
	AccessToken string `json:"access_token"`
	PixelID     string `json:"pixel_id"`
	APIRoot     string `json:"-"`
}

// adsimAccounts asks the simulator at base for its accounts.
func adsimAccounts(ctx context.Context, base string) ([]adsimAccount, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/_admin/accounts", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the ad network simulator does not answer at %s (MTK_ADSIM_URL; `make run` starts it): %w", base, err)
	}
	defer resp.Body.Close()
	var body struct {
		Accounts []adsimAccount `json:"accounts"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the ad network simulator at %s answered %d: %v", base, resp.StatusCode, err)
	}
	for i := range body.Accounts {
		body.Accounts[i].APIRoot = networks.APIRoot(body.Accounts[i].Network, base)
	}
	return body.Accounts, nil
}

// pickAccount chooses a network's account for the demo: one in the project's currency and zone
// when the simulator has one, else its first.
func pickAccount(accounts []adsimAccount, kind string, p platform.Project) (adsimAccount, error) {
	var first *adsimAccount
	for i, a := range accounts {
		if a.Network != kind {
			continue
		}
		if a.Currency == p.Currency && a.TimeZone == p.Timezone {
			return a, nil
		}
		if first == nil {
			first = &accounts[i]
		}
	}
	if first == nil {
		return adsimAccount{}, fmt.Errorf("the simulator has no %s account", kind)
	}
	return *first, nil
}

// backfillDemo syncs 90 days of every network connection that never synced, printing the
// figures of each run to log.
func backfillDemo(ctx context.Context, syncer *adsync.Syncer, demo demoOutput, log io.Writer) error {
	for _, c := range demo.Connections {
		if c.Kind == platform.KindCustom {
			continue
		}
		runs, err := syncer.Connections.ListSyncRuns(ctx, c.ID)
		if err != nil {
			return err
		}
		if slices.ContainsFunc(runs, func(r platform.SyncRun) bool { return r.Status == platform.SyncSuccess }) {
			continue
		}
		if err := syncOne(ctx, syncer, c.ID, adsync.Options{Backfill: true, Days: demoDays}, log); err != nil {
			return err
		}
	}
	return nil
}

// seedDemoRates writes generated daily exchange rates between BRL, EUR and USD for the demo's
// days up to today, so that money of the USD and EUR accounts converts; production feeds
// fx_rates from a rates provider.
func seedDemoRates(ctx context.Context, st stores, demo demoOutput, now time.Time) error {
	loc, err := time.LoadLocation(demo.Project.Timezone)
	if err != nil {
		return err
	}
	ds, err := enginetest.Generate(enginetest.Config{Seed: 1, Projects: []enginetest.ProjectSpec{{
		ID: demo.Project.ID, TimeZone: demo.Project.Timezone, Currency: demo.Project.Currency,
		Start: now.In(loc).AddDate(0, 0, -demoDays), Days: demoDays + 1,
	}}})
	if err != nil {
		return err
	}
	// Written as a rates feed writes: with the day's versions moved, so cached answers convert anew.
	rates := enginetest.FactsRates(ds.Rates)
	if err := facts.InsertRates(ctx, st.ch, rates, uint64(now.UnixNano())); err != nil {
		return err
	}
	return facts.Moved(ctx, st.pg, facts.RateChanges(rates))
}
