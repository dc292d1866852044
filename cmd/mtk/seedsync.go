package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/platform"
	adsync "mtk/sync"
	"mtk/sync/networks"
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
		runs, err := syncer.Platform.ListSyncRuns(ctx, c.ID)
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

// seedDemoBusiness adds generated business facts (events and orders attributed to ads) and
// daily exchange rates, once, until tracking fills the demo for real. The generated facts are
// moved onto the synced objects of the same network, so that attribution metrics (roas, cpa)
// join the synced spend.
func seedDemoBusiness(ctx context.Context, st stores, demo demoOutput, now time.Time) error {
	var n uint64
	if err := st.ch.QueryRow(ctx, "SELECT count() FROM facts_raw WHERE project_id = ? AND tx_count_total + page_views + leads != 0",
		demo.Project.ID).Scan(&n); err != nil || n > 0 {
		return err
	}
	loc, err := time.LoadLocation(demo.Project.Timezone)
	if err != nil {
		return err
	}
	spec := enginetest.ProjectSpec{
		ID: demo.Project.ID, TimeZone: demo.Project.Timezone, Currency: demo.Project.Currency,
		Start: now.In(loc).AddDate(0, 0, -demoDays), Days: demoDays,
		Connections: map[string]string{}, Accounts: map[string]string{},
	}
	for _, c := range demo.Connections {
		if c.SourceID != nil {
			spec.Connections[c.Kind], spec.Accounts[c.Kind] = c.ID, *c.SourceID
		}
	}
	ds, err := enginetest.Generate(enginetest.Config{Seed: 1, Projects: []enginetest.ProjectSpec{spec}})
	if err != nil {
		return err
	}
	move, err := demoObjectMap(ctx, adsync.NewStore(st.pg), ds, demo)
	if err != nil {
		return err
	}
	var facts []engine.Fact
	for _, f := range ds.Facts {
		if f.TxCountTotal+f.PageViews+f.Leads+f.InitiateCheckout == 0 {
			continue // an ad fact: the networks' own numbers come from the sync
		}
		if to, ok := move[cmp.Or(f.AdID, f.AdsetID, f.CampaignID)]; ok {
			f.CampaignID, f.AdsetID, f.AdID = to.CampaignID, to.AdsetID, to.AdID
			facts = append(facts, f)
		}
	}
	if err := enginetest.InsertRates(ctx, st.ch, ds.Rates); err != nil {
		return err
	}
	return engine.InsertFacts(ctx, st.ch, loc, facts)
}

// target ids of a moved fact.
type target struct{ CampaignID, AdsetID, AdID string }

// demoObjectMap maps every generated ad, ad set and campaign to a synced one of the same network
// and level, by position, with the synced one's parents.
func demoObjectMap(ctx context.Context, store *adsync.Store, ds *enginetest.Dataset, demo demoOutput) (map[string]target, error) {
	out := map[string]target{}
	for _, c := range demo.Connections {
		if c.SourceID == nil {
			continue
		}
		objs, err := store.Objects(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		synced := map[string][]adsync.Object{}
		for _, o := range objs {
			synced[o.Level] = append(synced[o.Level], o)
		}
		for _, l := range synced {
			slices.SortFunc(l, func(a, b adsync.Object) int { return cmp.Compare(a.ID, b.ID) })
		}
		seen := map[string]int{}
		for _, e := range ds.Entities {
			list := synced[e.Level]
			if e.Source != c.Kind || len(list) == 0 || e.Level == adsync.LevelAccount {
				continue
			}
			o := list[seen[e.Level]%len(list)]
			seen[e.Level]++
			switch e.Level {
			case adsync.LevelAd:
				out[e.ID] = target{CampaignID: o.CampaignID, AdsetID: o.ParentID, AdID: o.ID}
			case adsync.LevelAdset:
				out[e.ID] = target{CampaignID: o.CampaignID, AdsetID: o.ID}
			case adsync.LevelCampaign:
				out[e.ID] = target{CampaignID: o.ID}
			}
		}
	}
	return out, nil
}
