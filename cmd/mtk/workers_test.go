package main

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"

	"mtk/adsync/networks"
	"mtk/internal/adsim"
	"mtk/internal/jobs"
	"mtk/internal/wire"
	"mtk/platform"
)

// Two workers running the sync scheduler at once sync each due connection once: ten
// connections, never synced, are due on both; each worker (its own stores, as in its own process)
// runs the scheduler's job, four connections at a time, and every connection has one run.
func TestSyncRunsOnceAcrossWorkers(t *testing.T) {
	useTestStores(t)
	sim, err := adsim.New(adsim.Config{Seed: demoAdsimSeed, Days: 7, AccountsPerNetwork: 10})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var runners []*jobs.Runner
	var store *platform.Services
	for range 2 {
		st, err := openStores(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(st.Close)
		sys, err := wire.Build(cfg, st.pg, st.ch, wire.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sys.Close)
		runner, err := jobs.New(ctx, slog.New(slog.NewTextHandler(io.Discard, nil)), sys.Jobs())
		if err != nil {
			t.Fatal(err)
		}
		runners, store = append(runners, runner), sys.Store
	}
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Acme", platform.TierGrowth)
	if err != nil {
		t.Fatal(err)
	}
	var conns []string
	for _, a := range sim.Accounts() {
		if a.Network != adsim.Alpha {
			continue
		}
		p, err := store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: a.Name, Currency: a.Currency, Timezone: a.TimeZone})
		if err != nil {
			t.Fatal(err)
		}
		c, err := store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: platform.KindAlpha, Name: a.Name,
			SourceID: a.ID, APIBaseURL: networks.APIRoot(platform.KindAlpha, srv.URL), AccessToken: a.AccessToken})
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c.ID)
	}

	var wg sync.WaitGroup
	for _, r := range runners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.RunNow("sync"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, id := range conns {
		runs, err := store.Connections.ListSyncRuns(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(runs) != 1 || runs[0].Status != platform.SyncSuccess {
			t.Errorf("connection %s: %d runs %+v, want one that succeeded", id, len(runs), runs)
		}
	}
}
