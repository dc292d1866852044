package adsim

import (
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestDeterministicBySeed(t *testing.T) {
	a, _ := newSim(t, nil)
	b, _ := newSim(t, nil)
	c, _ := newSim(t, func(c *Config) { c.Seed = 43 })
	if !reflect.DeepEqual(a.Accounts(), b.Accounts()) {
		t.Fatal("same seed, different accounts")
	}
	if reflect.DeepEqual(a.Accounts(), c.Accounts()) {
		t.Fatal("different seeds, same accounts")
	}
	for _, acct := range a.Accounts() {
		q := TruthQuery{Network: acct.Network, Account: acct.ID, Granularity: GranularityHour}
		if ta, tb := truth(t, a, q), truth(t, b, q); !reflect.DeepEqual(ta, tb) || len(ta.Rows) == 0 {
			t.Fatalf("%s %s: truth differs between runs of one seed (or is empty)", acct.Network, acct.ID)
		}
		oa, _ := a.Objects(acct.Network, acct.ID)
		ob, _ := b.Objects(acct.Network, acct.ID)
		if !reflect.DeepEqual(oa, ob) {
			t.Fatalf("%s: objects differ between runs of one seed", acct.ID)
		}
	}
	// The wire answers too, byte for byte.
	sa, sb := serve(t, a), serve(t, b)
	acct := firstAccount(t, a, Alpha)
	path := acct.BasePath + "/insights?level=ad&fields=ad_id,spend,impressions,actions&time_increment=1&limit=50&access_token=" + acct.AccessToken
	x, y := body(t, sa.URL+path), body(t, sb.URL+path)
	if strings.ReplaceAll(x, sa.URL, "") != strings.ReplaceAll(y, sb.URL, "") || !strings.Contains(x, `"spend"`) {
		t.Fatal("same seed, different insights bodies")
	}
}

func body(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return string(raw)
}

// TestSumsAreExact checks that hours add up to days, days to the total, and ads to every higher
// level, exactly, for every account.
func TestSumsAreExact(t *testing.T) {
	s, _ := newSim(t, nil)
	for _, acct := range s.Accounts() {
		t.Run(acct.ID, func(t *testing.T) {
			q := TruthQuery{Network: acct.Network, Account: acct.ID}
			q.Granularity = GranularityHour
			hours := truth(t, s, q)
			q.Granularity = GranularityDay
			days := truth(t, s, q)
			q.Granularity = GranularityTotal
			total := truth(t, s, q)
			sumHours := map[bucket]Metrics{}
			for _, r := range hours.Rows {
				m := sumHours[bucket{r.EntityID, r.Date, -1}]
				m.Add(r.Metrics)
				sumHours[bucket{r.EntityID, r.Date, -1}] = m
			}
			if !reflect.DeepEqual(sumHours, byBucket(days.Rows)) {
				t.Fatal("hourly rows do not sum to the daily rows")
			}
			if hours.Total != days.Total || days.Total != total.Total || total.Total.Spend == 0 {
				t.Fatalf("totals differ: %+v %+v %+v", hours.Total, days.Total, total.Total)
			}
			parent := map[string]string{}
			objs, _ := s.Objects(acct.Network, acct.ID)
			for _, o := range objs {
				parent[o.ID] = o.ParentID
			}
			for _, lvl := range []Level{LevelAdSet, LevelCampaign, LevelAccount} {
				q := TruthQuery{Network: acct.Network, Account: acct.ID, Level: lvl, Granularity: GranularityDay}
				want := byBucket(truth(t, s, q).Rows)
				got := map[bucket]Metrics{}
				for _, r := range days.Rows {
					id := r.EntityID
					for range map[Level]int{LevelAdSet: 1, LevelCampaign: 2, LevelAccount: 3}[lvl] {
						id = parent[id]
					}
					if lvl == LevelAccount {
						id = acct.ID
					}
					m := got[bucket{id, r.Date, -1}]
					m.Add(r.Metrics)
					got[bucket{id, r.Date, -1}] = m
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("ad rows do not sum to %s rows", lvl)
				}
			}
		})
	}
}

// TestNoFutureAndPartialHour checks that nothing exists after now and that the hour in progress
// grows as the clock moves.
func TestNoFutureAndPartialHour(t *testing.T) {
	s, fc := newSim(t, nil)
	var acct AccountInfo
	for _, a := range s.Accounts() {
		if a.TimeZone == "UTC" {
			acct = a
		}
	}
	q := TruthQuery{Network: acct.Network, Account: acct.ID, Level: LevelAccount, Granularity: GranularityHour,
		Since: "2024-03-15", Until: "2024-03-20"}
	at := func() map[int]int64 {
		out := map[int]int64{}
		for _, r := range truth(t, s, q).Rows {
			if r.Date != "2024-03-15" {
				t.Fatalf("a row after today: %+v", r)
			}
			out[*r.Hour] = r.Spend
		}
		return out
	}
	before := at()
	if before[14] == 0 || before[15] != 0 {
		t.Fatalf("at 14:30 want a partial 14:00 hour and no 15:00 hour: %v", before)
	}
	fc.Advance(30 * time.Minute)
	after := at()
	if after[14] <= before[14] || after[13] != before[13] {
		t.Fatalf("the 14:00 hour should grow by 15:00 and the past stay: %v -> %v", before, after)
	}
}

// TestConcurrentUse reads all three networks while objects are paused and resumed; run it with
// -race.
func TestConcurrentUse(t *testing.T) {
	s, fc := newSim(t, nil)
	srv := serve(t, s)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 40 {
			for _, a := range s.accounts {
				o := a.campaigns[i%len(a.campaigns)]
				_ = s.SetStatus(o.id, []Status{Paused, Active}[i%2])
			}
			fc.Advance(time.Minute)
		}
	}()
	beta := firstAccount(t, s, Beta)
	c := newBetaClient(t, srv.URL, beta)
	for range 5 {
		for _, nr := range netRequests(srv.URL, s) {
			if resp, _ := nr.do(t); resp.StatusCode != 200 {
				t.Errorf("%s: %d", nr.network, resp.StatusCode)
			}
		}
		c.all("SELECT campaign.id, campaign.status, metrics.clicks FROM campaign WHERE segments.date DURING TODAY", 100)
	}
	<-done
}
