package networks

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"mtk/adsync"
	"mtk/facts"
	"mtk/internal/adsim"
	"mtk/internal/clock"
	"mtk/platform"
)

// TestConnectorsReadWhatTheNetworkHolds reads every network's objects and a week of insights at
// day and hour grain and compares them with the simulator's own view, exactly.
func TestConnectorsReadWhatTheNetworkHolds(t *testing.T) {
	fc := clock.NewFake(time.Date(2024, 3, 15, 14, 30, 0, 0, time.UTC))
	sim, err := adsim.New(adsim.Config{Seed: 7, Clock: fc, Days: 20, AccountsPerNetwork: 1, RestateAfter: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	ctx := context.Background()
	for _, a := range sim.Accounts() {
		t.Run(string(a.Network), func(t *testing.T) {
			id := a.ID
			conn, err := Factory{}.Connector(platform.Connection{ID: "con_x", Kind: string(a.Network),
				APIBaseURL: APIRoot(string(a.Network), srv.URL), AccessToken: a.AccessToken, SourceID: &id})
			if err != nil {
				t.Fatal(err)
			}
			acct, err := conn.Account(ctx)
			if err != nil || acct.Currency != a.Currency || acct.TimeZone != a.TimeZone {
				t.Fatalf("account %+v, %v; want %s %s", acct, err, a.Currency, a.TimeZone)
			}
			objs, err := conn.Objects(ctx)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := sim.Objects(a.Network, a.ID)
			if len(objs) != len(want) {
				t.Fatalf("%d objects, want %d", len(objs), len(want))
			}
			byID := map[string]adsync.Object{}
			for _, o := range objs {
				byID[o.ID] = o
			}
			for _, w := range want {
				o := byID[w.ID]
				if o.Name != w.Name || o.Status != string(w.Status) || o.BudgetMicros != w.Budget*facts.MicrosPerMinor || (w.ParentID != "" && o.ParentID != w.ParentID) {
					t.Fatalf("object %+v, want %+v", o, w)
				}
			}
			for _, g := range []adsync.Grain{adsync.GrainDay, adsync.GrainHour} {
				rows, err := conn.Insights(ctx, "2024-03-08", "2024-03-14", g)
				if err != nil {
					t.Fatal(err)
				}
				gran := adsim.GranularityTotal
				truth, err := sim.Truth(adsim.TruthQuery{Network: a.Network, Account: a.ID, Granularity: gran, Since: "2024-03-08", Until: "2024-03-14"})
				if err != nil {
					t.Fatal(err)
				}
				var got facts.Values
				for _, r := range rows {
					got = got.Add(r.Metrics)
				}
				tt := truth.Total
				wantM := facts.Values{facts.Spend: tt.Spend * facts.MicrosPerMinor, facts.Impressions: tt.Impressions, facts.Clicks: tt.Clicks, facts.VideoPlays: tt.VideoPlays, facts.VideoViews3s: tt.VideoViews3s, facts.VideoViewsP75: tt.VideoViewsP75}
				if conn.HasReach() && g == adsync.GrainDay {
					wantM[facts.Reach] = tt.Reach
				}
				if got != wantM {
					t.Fatalf("grain %d: sum %+v, want %+v", g, got, wantM)
				}
			}
		})
	}
}
