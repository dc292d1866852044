package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"time"

	"mtk/adsync"
	"mtk/adsync/networks"
	"mtk/internal/adsim"
	"mtk/internal/clock"
	"mtk/platform"
)

// The sync of the run: the most viewed project (rank 0) has, besides its generated connections,
// an alpha_ads connection to an account of the ad network simulator (internal/adsim, served on
// loopback by this process on the run's clock), synced by the product's Syncer over HTTP as
// `mtk serve` syncs: its first run reads 30 days (done before the runs), later ones today and
// the two days before, and write what changed (today's new hour, restatements) through sync
// batches, which move the data versions of the days they write.

// syncedName is the synced connection's name in the project.
const syncedName = "Alpha sim"

// simServer is the simulator on a loopback port.
type simServer struct {
	sim  *adsim.Sim
	srv  *http.Server
	base string
}

// startSim serves a simulator whose history ends on the run's today, on clk.
func startSim(clk clock.Clock, seed int64) (*simServer, error) {
	sim, err := adsim.New(adsim.Config{Seed: seed, Clock: clk, Days: 90, Start: dashLast.AddDate(0, 0, -90)})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &simServer{sim: sim, srv: &http.Server{Handler: sim.Handler(), ReadHeaderTimeout: 10 * time.Second},
		base: "http://" + ln.Addr().String()}
	go s.srv.Serve(ln) //nolint:errcheck // ends with close
	return s, nil
}

func (s *simServer) close() { s.srv.Close() } //nolint:errcheck

// ensureSynced finds or makes the synced connection of p, pointed at this run's simulator (its
// port changes from run to run), and runs its first sync when it never succeeded.
func ensureSynced(ctx context.Context, store *platform.Connections, syncer *adsync.Syncer, sim *simServer, p *dashProject) (platform.Connection, error) {
	accounts := sim.sim.Accounts()
	i := slices.IndexFunc(accounts, func(a adsim.AccountInfo) bool {
		return a.Network == adsim.Alpha && a.TimeZone == p.project.Timezone
	})
	if i < 0 {
		i = slices.IndexFunc(accounts, func(a adsim.AccountInfo) bool { return a.Network == adsim.Alpha })
	}
	if i < 0 {
		return platform.Connection{}, errors.New("the simulator has no alpha_ads account")
	}
	acct := accounts[i]
	root := networks.APIRoot(platform.KindAlpha, sim.base)
	existing, err := store.ListConnections(ctx, p.project.ID)
	if err != nil {
		return platform.Connection{}, err
	}
	var c platform.Connection
	if j := slices.IndexFunc(existing, func(c platform.Connection) bool { return c.Name == syncedName }); j >= 0 {
		if err := store.SetConnectionAPI(ctx, existing[j].ID, acct.ID, root, acct.AccessToken); err != nil {
			return c, err
		}
		if c, err = store.Connection(ctx, existing[j].ID); err != nil {
			return c, err
		}
	} else if c, err = store.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.project.ID, Kind: platform.KindAlpha,
		Name: syncedName, SourceID: acct.ID, APIBaseURL: root, AccessToken: acct.AccessToken}); err != nil {
		return c, err
	}
	runs, err := store.ListSyncRuns(ctx, c.ID)
	if err != nil {
		return c, err
	}
	if !slices.ContainsFunc(runs, func(r platform.SyncRun) bool { return r.Status == platform.SyncSuccess }) {
		res, err := syncer.Run(ctx, c, adsync.Options{})
		if err != nil {
			return c, err
		}
		log.Printf("first sync of %s (%s, %s %s): %s, %d rows in %s", c.ID, p.project.Name, acct.ID, acct.Currency,
			res.SyncType, res.Rows, res.Took.Round(time.Millisecond))
	}
	return c, nil
}

// syncRecord is one sync during a run.
type syncRecord struct {
	At    float64 `json:"at_s"` // after the run's start (warm-up included)
	Type  string  `json:"type"`
	Rows  int64   `json:"rows"`
	TookS float64 `json:"took_s"`
	Error string  `json:"error,omitempty"`
}

// syncEvery runs a sync of c first after `first`, then every `every`, until ctx ends.
func syncEvery(ctx context.Context, syncer *adsync.Syncer, store *platform.Connections, connID string, first, every time.Duration) []syncRecord {
	var out []syncRecord
	start := time.Now()
	wait := first
	for {
		select {
		case <-ctx.Done():
			return out
		case <-time.After(wait):
		}
		began := time.Now()
		rec := syncRecord{At: round(began.Sub(start).Seconds(), 1)}
		c, err := store.Connection(ctx, connID)
		var res adsync.Result
		if err == nil {
			res, err = syncer.Run(context.WithoutCancel(ctx), c, adsync.Options{})
		}
		rec.Type, rec.Rows, rec.TookS = res.SyncType, res.Rows, round(time.Since(began).Seconds(), 2)
		if err != nil {
			rec.Error = fmt.Sprint(err)
		}
		out = append(out, rec)
		wait = max(0, every-time.Since(began))
	}
}
