package main

import (
	"context"
	"net/http/httptest"
	"testing"

	"mtk/internal/adsim"
	"mtk/platform"
)

// demoAdsimSeed is the simulator seed whose alpha accounts include one in BRL and
// America/Sao_Paulo, like the demo project (scripts/run.sh starts cmd/adsim with it).
const demoAdsimSeed = 3

// useAdsim serves a simulator for the test and points MTK_ADSIM_URL at it.
func useAdsim(t *testing.T) *adsim.Sim {
	t.Helper()
	sim, err := adsim.New(adsim.Config{Seed: demoAdsimSeed, Days: demoDays})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	t.Setenv("MTK_ADSIM_URL", srv.URL)
	return sim
}

// TestSeedDemoBackfillsFromTheSimulator: the demo's network connections point at the
// simulator's accounts (alpha in the project's currency and zone), are backfilled once, and hold
// ad facts and business facts.
func TestSeedDemoBackfillsFromTheSimulator(t *testing.T) {
	useTestStores(t)
	useAdsim(t)
	demo := cliJSON(t, "seed", "demo")
	cliJSON(t, "seed", "demo")
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
	store := platform.New(st.pg, nil)
	for _, c := range demo["connections"].([]any) {
		conn := c.(map[string]any)
		if conn["source"] == platform.CustomSource {
			continue
		}
		runs, err := store.Connections.ListSyncRuns(ctx, conn["id"].(string))
		if err != nil || len(runs) != 1 || runs[0].SyncType != platform.SyncBackfill || runs[0].Status != platform.SyncSuccess || runs[0].RowsSynced == 0 {
			t.Fatalf("%s runs %+v %v", conn["source"], runs, err)
		}
	}
	var spend, orders int64
	if err := st.ch.QueryRow(ctx, "SELECT toInt64(sum(spend)), toInt64(sum(tx_count_total)) FROM facts_daily WHERE project_id = ?",
		demo["project"].(map[string]any)["id"]).Scan(&spend, &orders); err != nil || spend == 0 || orders == 0 {
		t.Fatalf("demo facts: spend %d, orders %d, %v", spend, orders, err)
	}
}
