package adsim

import (
	"fmt"
	"testing"
	"time"
)

// liveAd returns an ad of network n whose hour 13:00-14:00 UTC of testNow's day had spend.
func liveAd(t *testing.T, s *Sim, n Network) *object {
	t.Helper()
	for _, a := range s.accounts {
		if a.network != n {
			continue
		}
		for _, ad := range a.ofLevel(LevelAd) {
			h := testNow.Truncate(time.Hour).Unix() - 3600
			if ad.liveAt(testNow.Unix()) && activeSeconds(ad, h, h+3600) == 3600 {
				return ad
			}
		}
	}
	t.Fatalf("no live %s ad", n)
	return nil
}

// adHours returns the final spend of every hour of ad on local day d, by hour.
func adHours(t *testing.T, s *Sim, ad *object, d string) map[int]int64 {
	t.Helper()
	tr := truth(t, s, TruthQuery{Network: ad.acct.network, Account: ad.acct.id, Granularity: GranularityHour, Since: d, Until: d})
	out := map[int]int64{}
	for _, r := range tr.Rows {
		if r.EntityID == ad.id {
			out[*r.Hour] += r.Spend
		}
	}
	return out
}

func TestPausedObjectsAccrueNothing(t *testing.T) {
	for _, lvl := range []Level{LevelAd, LevelAdSet, LevelCampaign} {
		t.Run(string(lvl), func(t *testing.T) {
			s, fc := newSim(t, nil)
			twin, twinClock := newSim(t, nil)
			ad := liveAd(t, s, Alpha)
			target := ad.ancestor(lvl)
			if err := s.SetStatus(target.id, Paused); err != nil {
				t.Fatal(err)
			}
			fc.Advance(3 * time.Hour) // 17:30
			twinClock.Advance(3 * time.Hour)
			today, _ := ad.acct.localOf(testNow.Unix())
			_, pauseHour := ad.acct.localOf(testNow.Unix())
			got, want := adHours(t, s, ad, today.String()), adHours(t, twin, s.objects[ad.id], today.String())
			for h := range 24 {
				switch {
				case h < pauseHour && got[h] != want[h]:
					t.Errorf("hour %d before the pause changed: %d, want %d", h, got[h], want[h])
				case h == pauseHour && (got[h] == 0 || got[h] >= want[h]):
					t.Errorf("hour %d of the pause: %d, want some but less than %d", h, got[h], want[h])
				case h > pauseHour && got[h] != 0:
					t.Errorf("hour %d after the pause: spend %d", h, got[h])
				}
			}
			for _, other := range target.acct.ofLevel(LevelAd) {
				if other.ancestor(lvl) == target && adHours(t, s, other, today.String())[pauseHour+2] != 0 {
					t.Errorf("ad %s under the paused %s spent", other.id, lvl)
				}
			}
			if err := s.SetStatus(target.id, Active); err != nil {
				t.Fatal(err)
			}
			fc.Advance(time.Hour)
			if adHours(t, s, ad, today.String())[pauseHour+3] == 0 {
				t.Error("no spend after resuming")
			}
		})
	}
}

// TestDailyBudgets checks every daily owner and day of history: spend never above the budget,
// and close to it on days when the owner and its ads were live all day.
func TestDailyBudgets(t *testing.T) {
	s, _ := newSim(t, func(c *Config) { c.AccountsPerNetwork = 3 })
	now := s.now()
	checked := 0
	for _, a := range s.accounts {
		cells := s.accrue(a, s.start, now, now)
		spent := map[string]int64{} // owner|day
		for _, c := range cells {
			spent[fmt.Sprint(c.ad.owner.id, "|", c.day)] += c.m.Spend
		}
		first, _ := a.localOf(s.start)
		for _, o := range a.owners {
			if o.budget != BudgetDaily {
				continue
			}
			for d := first + 1; d < a.today(now); d++ {
				hs, he := a.dayStart(d), a.dayStart(d+1)
				maxB, changed := o.budgetAt(hs), false
				for _, b := range o.budgets {
					if b.at > hs && b.at < he {
						maxB, changed = max(maxB, b.amount), true
					}
				}
				got := spent[fmt.Sprint(o.id, "|", d)]
				if got > maxB || (!changed && got > o.budgetAt(hs)) {
					t.Fatalf("%s on %s spent %d, budget %d", o.id, d, got, maxB)
				}
				allLive := !changed
				for _, ad := range o.ads {
					allLive = allLive && activeSeconds(ad, hs, he) == he-hs
				}
				if allLive {
					checked++
					if got < o.budgetAt(hs)*88/100 {
						t.Fatalf("%s on %s spent %d of a live day's budget %d", o.id, d, got, o.budgetAt(hs))
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d fully live owner days checked", checked)
	}
}

func TestLifetimeBudgets(t *testing.T) {
	s, fc := newSim(t, func(c *Config) { c.AccountsPerNetwork = 3 })
	fc.Advance(60 * 24 * time.Hour) // past every flight
	now := s.now()
	n := 0
	for _, a := range s.accounts {
		spent := map[*object]int64{}
		for _, c := range s.accrue(a, s.start, now, now) {
			spent[c.ad.owner] += c.m.Spend
		}
		for _, o := range a.owners {
			if o.budget == BudgetLifetime {
				n++
				maxB := int64(0)
				for _, b := range o.budgets {
					maxB = max(maxB, b.amount)
				}
				if spent[o] > maxB || spent[o] == 0 {
					t.Errorf("%s spent %d of a lifetime budget of %d", o.id, spent[o], maxB)
				}
			}
		}
	}
	if n == 0 {
		t.Fatal("no lifetime budgets in the world")
	}
}

// TestBudgetCutStopsSpend lowers a daily budget below today's spend: the rest of the day spends
// nothing, and what was spent before the cut stays.
func TestBudgetCutStopsSpend(t *testing.T) {
	s, fc := newSim(t, nil)
	ad := liveAd(t, s, Beta)
	o := ad.owner
	today, _ := o.acct.localOf(testNow.Unix())
	dayTotal := func() int64 {
		tr := truth(t, s, TruthQuery{Network: Beta, Account: o.acct.id, Level: LevelCampaign, Since: today.String(), Until: today.String()})
		for _, r := range tr.Rows {
			if r.EntityID == o.id {
				return r.Spend
			}
		}
		return 0
	}
	before := dayTotal()
	if err := s.SetBudget(o.id, max(before/2, 1)); err != nil {
		t.Fatal(err)
	}
	fc.Advance(5 * time.Hour)
	if after := dayTotal(); after != before {
		t.Fatalf("spend moved from %d to %d after the budget fell below it", before, after)
	}
	if err := s.SetBudget(o.id, before*3); err != nil {
		t.Fatal(err)
	}
	fc.Advance(time.Hour)
	if after := dayTotal(); after <= before || after > before*3 {
		t.Fatalf("after raising the budget to %d the day spent %d (was %d)", before*3, after, before)
	}
}

// TestRestatement reads yesterday during today's first hours (provisional), after RestateAfter
// (final: equal to the truth) and again later (unchanged).
func TestRestatement(t *testing.T) {
	s, fc := newSim(t, nil)
	for _, acct := range s.Accounts() {
		a := s.account(acct.Network, acct.ID)
		today := a.today(s.now())
		yesterday := today - 1
		g := grouping{level: LevelAd, byDay: true}
		read := func(at time.Time) map[string]Metrics {
			fc.Set(at)
			out := map[string]Metrics{}
			for _, r := range s.rows(a, yesterday, yesterday, g, s.now(), false) {
				out[r.obj.id] = r.m
			}
			return out
		}
		early := read(time.Unix(a.dayStart(today)+2*3600, 0))
		fin := truth(t, s, TruthQuery{Network: acct.Network, Account: acct.ID, Since: yesterday.String(), Until: yesterday.String()})
		final := read(time.Unix(a.dayStart(today)+7*3600, 0))
		later := read(time.Unix(a.dayStart(today)+20*3600, 0))
		differs := 0
		for _, r := range fin.Rows {
			if final[r.EntityID] != r.Metrics || later[r.EntityID] != r.Metrics {
				t.Fatalf("%s: a final read of %s differs from the truth", acct.ID, r.EntityID)
			}
			e := early[r.EntityID]
			if e != r.Metrics {
				differs++
			}
			if d := r.Spend - e.Spend; d < 0 || d > r.Spend/100+1 {
				t.Fatalf("%s: provisional spend %d vs final %d: want slightly lower", r.EntityID, e.Spend, r.Spend)
			}
		}
		if differs == 0 {
			t.Fatalf("%s: the provisional read equals the final one", acct.ID)
		}
		fc.Set(testNow)
	}
}
