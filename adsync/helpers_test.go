package adsync_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/adsync"
	"mtk/adsync/netclient"
	"mtk/adsync/networks"
	"mtk/facts"
	"mtk/internal/adsim"
	"mtk/internal/clock"
	"mtk/internal/testenv"
	"mtk/platform"
)

// world is one test's simulator, stores and syncer, with one project per simulated account
// (in the account's zone and currency, so that days and hours compare exactly).
type world struct {
	t      *testing.T
	sim    *adsim.Sim
	srv    *httptest.Server
	clock  *clock.Fake
	store  *platform.Services
	ch     driver.Conn
	syncer *adsync.Syncer
	ws     platform.Workspace
	conns  map[adsim.Network]platform.Connection
	accts  map[adsim.Network]adsim.AccountInfo
	sleeps *[]time.Duration
	pg     testenv.PG
}

func newWorld(t *testing.T, start time.Time, days int) *world {
	t.Helper()
	return newWorldOn(t, start, days, testenv.ClickHouse(t).Conn)
}

// newWorldOn is newWorld over ch, a test's ClickHouse database (on one server or a cluster).
func newWorldOn(t *testing.T, start time.Time, days int, ch driver.Conn) *world {
	t.Helper()
	pg := testenv.Postgres(t)
	fc := clock.NewFake(start)
	sim, err := adsim.New(adsim.Config{Seed: 11, Clock: fc, Days: days, AccountsPerNetwork: 1})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	var sleeps []time.Duration
	w := &world{t: t, sim: sim, srv: srv, clock: fc, store: platform.New(pg.Pool, fc), ch: ch,
		conns: map[adsim.Network]platform.Connection{}, accts: map[adsim.Network]adsim.AccountInfo{}, sleeps: &sleeps, pg: pg}
	factory := networks.Factory{HTTP: netclient.Config{
		Timeout: 2 * time.Second,
		// Waiting moves the simulated clock instead of the test: a quota window passes at once.
		Sleep: func(_ context.Context, d time.Duration) error { sleeps = append(sleeps, d); fc.Advance(d); return nil },
	}}
	w.syncer = &adsync.Syncer{Store: adsync.NewStore(pg.Pool), ClickHouse: ch,
		Connectors: factory.Connector, Clock: fc, Projects: w.store.Projects, Connections: w.store.Connections}
	ctx := context.Background()
	if w.ws, err = w.store.Workspaces.CreateWorkspace(ctx, "sync test", platform.TierGrowth); err != nil {
		t.Fatal(err)
	}
	for _, a := range sim.Accounts() {
		p, err := w.store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: w.ws.ID, Name: string(a.Network),
			Currency: a.Currency, Timezone: a.TimeZone})
		if err != nil {
			t.Fatal(err)
		}
		c, err := w.store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: p.ID, Kind: string(a.Network),
			Name: a.Name, SourceID: a.ID, APIBaseURL: networks.APIRoot(string(a.Network), srv.URL), AccessToken: a.AccessToken})
		if err != nil {
			t.Fatal(err)
		}
		w.conns[a.Network], w.accts[a.Network] = c, a
	}
	return w
}

// conn reads a connection as stored now.
func (w *world) conn(n adsim.Network) platform.Connection {
	w.t.Helper()
	c, err := w.store.Connections.ConnectionIn(context.Background(), []string{w.ws.ID}, w.conns[n].ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return c
}

// syncAll runs one (automatic) sync of every connection and returns the rows written.
func (w *world) syncAll() int64 {
	w.t.Helper()
	var rows int64
	for n := range w.conns {
		r, err := w.syncer.Run(context.Background(), w.conn(n), adsync.Options{})
		if err != nil {
			w.t.Fatalf("%s: %v", n, err)
		}
		rows += r.Rows
	}
	return rows
}

// metricsRow is a stored or true total of one entity in one bucket.
type metricsRow struct {
	Spend, Impressions, Clicks, Reach, Plays, Views3s, P75 int64
}

func fromTruth(m adsim.Metrics, withReach bool) metricsRow {
	r := metricsRow{m.Spend * facts.MicrosPerMinor, m.Impressions, m.Clicks, 0, m.VideoPlays, m.VideoViews3s, m.VideoViewsP75}
	if withReach {
		r.Reach = m.Reach
	}
	return r
}

// stored sums a table of ClickHouse per ad and time expression (a string) for one connection.
func (w *world) stored(table, timeExpr, connectionID string) map[string]metricsRow {
	w.t.Helper()
	rows, err := w.ch.Query(context.Background(), "SELECT ad_id, "+timeExpr+" AS t, sum(spend), sum(impressions), sum(clicks), "+
		"sum(reach), sum(video_plays), sum(video_views_3s), sum(video_views_p75) FROM "+table+
		" WHERE connection_id = ? GROUP BY ad_id, t", connectionID)
	if err != nil {
		w.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]metricsRow{}
	for rows.Next() {
		var ad, at string
		var r metricsRow
		if err := rows.Scan(&ad, &at, &r.Spend, &r.Impressions, &r.Clicks, &r.Reach, &r.Plays, &r.Views3s, &r.P75); err != nil {
			w.t.Fatal(err)
		}
		out[ad+" "+at] = r
	}
	return out
}

// total sums one measure set of a connection over a table.
func (w *world) total(table, connectionID string) metricsRow {
	w.t.Helper()
	var r metricsRow
	if err := w.ch.QueryRow(context.Background(), "SELECT sum(spend), sum(impressions), sum(clicks), sum(reach), sum(video_plays), "+
		"sum(video_views_3s), sum(video_views_p75) FROM "+table+" WHERE connection_id = ?", connectionID).Scan(
		&r.Spend, &r.Impressions, &r.Clicks, &r.Reach, &r.Plays, &r.Views3s, &r.P75); err != nil {
		w.t.Fatal(err)
	}
	return r
}

// runs lists a connection's runs, newest first.
func (w *world) runs(n adsim.Network) []platform.SyncRun {
	w.t.Helper()
	runs, err := w.store.Connections.ListSyncRuns(context.Background(), w.conns[n].ID)
	if err != nil {
		w.t.Fatal(err)
	}
	return runs
}
