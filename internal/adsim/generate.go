package adsim

import (
	"fmt"
	"time"
)

// The world is generated once, in New, from the seed: accounts, their object trees, each object's
// start, flight, budget and seeded status/budget history, and each ad's delivery rates.

type market struct {
	currency, tz string
}

// markets pairs a currency with a time zone; every zone has a whole-hour UTC offset.
var markets = []market{
	{"BRL", "America/Sao_Paulo"},
	{"USD", "America/New_York"},
	{"EUR", "Europe/Berlin"},
	{"USD", "UTC"},
}

var (
	brands     = []string{"Casa Aurora", "Nordic Gear", "Urban Pedal", "Sol e Mar", "Verde Vivo", "Blue Harbor", "Kaffee Haus", "Luna Beauty"}
	themes     = []string{"Black Friday", "Summer Sale", "Always On", "New Collection", "Retargeting", "Launch", "Brand Awareness", "Clearance"}
	audiences  = []string{"Broad", "Lookalike 1%", "Interests - Fitness", "Women 25-44", "Men 18-34", "Website Visitors 30d", "Cart Abandoners", "Customers LTV"}
	placements = []string{"Feed", "Stories", "Reels", "All Placements", "Search", "Video"}
	creatives  = []string{"Video", "Carousel", "Static", "UGC", "Testimonial", "Demo"}
	objectives = map[Network][]string{
		Alpha: {"OUTCOME_SALES", "OUTCOME_LEADS", "OUTCOME_TRAFFIC", "OUTCOME_AWARENESS"},
		Beta:  {"SEARCH", "VIDEO", "PERFORMANCE_MAX", "DISPLAY"},
		Gamma: {"CONVERSIONS", "TRAFFIC", "VIDEO_VIEWS", "REACH"},
	}
)

// generate builds every account of every network.
func (s *Sim) generate() error {
	anchor := s.start + int64(s.cfg.Days)*86400
	for ni, n := range Networks {
		for i := 0; i < s.cfg.AccountsPerNetwork; i++ {
			r := newRNG(uint64(s.cfg.Seed), uint64(ni), uint64(i))
			a, err := s.newAccount(n, ni+i, r)
			if err != nil {
				return err
			}
			for c := 0; c < s.cfg.CampaignsPerAccount; c++ {
				s.newCampaign(a, c, r, anchor)
			}
			s.index(a)
		}
	}
	return nil
}

// uniqueID draws ids from gen until one is unused.
func (s *Sim) uniqueID(gen func() string) string {
	for {
		if id := gen(); !s.taken[id] {
			s.taken[id] = true
			return id
		}
	}
}

func (s *Sim) newAccount(n Network, slot int, r *rng) (*account, error) {
	m := markets[(slot+int(uint64(s.cfg.Seed)%uint64(len(markets))))%len(markets)]
	loc, err := time.LoadLocation(m.tz)
	if err != nil {
		return nil, fmt.Errorf("adsim: time zone %s: %w", m.tz, err)
	}
	a := &account{network: n, currency: m.currency, exp: currencyExp[m.currency], tz: m.tz, loc: loc, created: s.start}
	switch n {
	case Alpha:
		a.id = s.uniqueID(func() string { return "act_" + r.digits(15) })
		a.displayID = a.id
		a.token = "EAAB" + r.hex(44)
		a.pixelID = s.uniqueID(func() string { return r.digits(15) })
	case Beta:
		a.id = s.uniqueID(func() string { return r.digits(10) })
		a.displayID = a.id[:3] + "-" + a.id[3:6] + "-" + a.id[6:]
		a.token = "ya29.adsim-" + r.hex(40)
	case Gamma:
		a.id = s.uniqueID(func() string { return "7" + r.digits(18) })
		a.displayID = a.id
		a.token = r.hex(40)
	}
	a.name = fmt.Sprintf("%s %s", pick(r, brands), m.currency)
	s.accounts = append(s.accounts, a)
	s.tokens[a.token] = a
	return a, nil
}

// objectID draws a fresh id of the shape the network uses at level l.
func (s *Sim) objectID(n Network, l Level, r *rng) string {
	return s.uniqueID(func() string {
		switch n {
		case Alpha:
			return "1202" + r.digits(14)
		case Beta:
			if l == LevelCampaign {
				return r.digits(11)
			}
			return r.digits(12)
		default:
			return "17" + r.digits(17)
		}
	})
}

// budgetPlan chooses where a campaign's budget lives and how it is spent, as each network allows:
// beta has daily campaign budgets only; alpha and gamma have both kinds at either level.
func budgetPlan(n Network, r *rng) (Level, BudgetKind) {
	x := r.intn(0, 99)
	switch {
	case n == Beta:
		return LevelCampaign, BudgetDaily
	case x < 35:
		return LevelCampaign, BudgetDaily
	case x < 50:
		return LevelCampaign, BudgetLifetime
	case x < 88:
		return LevelAdSet, BudgetDaily
	default:
		return LevelAdSet, BudgetLifetime
	}
}

func (s *Sim) newCampaign(a *account, idx int, r *rng, anchor int64) {
	n := a.network
	start := s.start + r.intn(0, 12*3600)
	if idx > 0 {
		start += r.intn(0, int64(s.cfg.Days)*2/3*24) * 3600
	}
	c := &object{id: s.objectID(n, LevelCampaign, r), level: LevelCampaign, acct: a, start: start,
		objective: pick(r, objectives[n])}
	c.name = fmt.Sprintf("%s | %s | %s", a.currency[:2], pick(r, themes), c.objective)
	if n == Beta {
		c.budgetID = s.objectID(n, LevelCampaign, r)
	}
	budgetLevel, kind := budgetPlan(n, r)
	if budgetLevel == LevelCampaign {
		s.giveBudget(c, kind, r)
	}
	a.campaigns = append(a.campaigns, c)
	a.objects = append(a.objects, c)
	seedHistory(c, r, anchor)
	for j := 0; j < s.cfg.AdSetsPerCampaign; j++ {
		as := &object{id: s.objectID(n, LevelAdSet, r), level: LevelAdSet, acct: a, parent: c,
			start: c.start + r.intn(0, 48)*3600 + r.intn(0, 3599)}
		as.name = fmt.Sprintf("%s - %s", pick(r, audiences), pick(r, placements))
		if budgetLevel == LevelAdSet {
			s.giveBudget(as, kind, r)
		}
		c.children = append(c.children, as)
		a.objects = append(a.objects, as)
		seedHistory(as, r, anchor)
		for k := 0; k < s.cfg.AdsPerAdSet; k++ {
			ad := &object{id: s.objectID(n, LevelAd, r), level: LevelAd, acct: a, parent: as,
				start: as.start + r.intn(0, 24)*3600 + r.intn(0, 3599)}
			ad.name = fmt.Sprintf("%s %02d - %s", pick(r, creatives), k+1, pick(r, []string{"Hook A", "Hook B", "Offer", "Social Proof"}))
			ad.weight = r.intn(50, 150)
			ad.rates = newRates(a, r)
			as.children = append(as.children, ad)
			a.objects = append(a.objects, ad)
			seedHistory(ad, r, anchor)
		}
	}
}

// giveBudget makes o a budget owner. A lifetime budget gets a flight of three to eight weeks and
// an amount close to what a daily budget would spend over it.
func (s *Sim) giveBudget(o *object, kind BudgetKind, r *rng) {
	o.budget = kind
	daily := r.intn(30, 400) * 100
	amount := daily
	if kind == BudgetLifetime {
		days := r.intn(21, 56)
		o.end = o.start + days*86400
		amount = daily * days
	}
	o.budgets = []budgetChange{{at: o.start, amount: amount}}
}

// seedHistory gives o its past: sometimes a pause of a few hours to days, sometimes (ads) a pause
// that lasts to the present, sometimes a budget change. All of it happens before anchor.
func seedHistory(o *object, r *rng, anchor int64) {
	o.statuses = []statusChange{{at: o.start, status: Active}}
	if o.start >= anchor-3600 {
		return
	}
	switch {
	case r.chance(15):
		at := r.intn(o.start, anchor-1)
		o.statuses = append(o.statuses, statusChange{at: at, status: Paused})
		if back := at + r.intn(6, 72)*3600 + r.intn(0, 3599); back < anchor {
			o.statuses = append(o.statuses, statusChange{at: back, status: Active})
		}
	case o.level == LevelAd && r.chance(10):
		at := r.intn(max(o.start, anchor-20*86400), anchor-1)
		o.statuses = append(o.statuses, statusChange{at: at, status: Paused})
	}
	if o.budget != BudgetNone && r.chance(20) {
		at := r.intn(o.start, anchor-1)
		amount := o.budgets[0].amount * r.intn(60, 150) / 100 / 100 * 100
		o.budgets = append(o.budgets, budgetChange{at: at, amount: max(amount, 100)})
	}
}

// newRates draws an ad's delivery rates; prices follow the currency.
func newRates(a *account, r *rng) adRates {
	cpm := map[string][2]int64{"BRL": {1200, 4000}, "USD": {500, 1500}, "EUR": {600, 1600}}[a.currency]
	rt := adRates{
		cpm:    r.intn(cpm[0], cpm[1]),
		ctr:    r.intn(6000, 22000),
		play:   r.intn(250000, 650000),
		view3s: r.intn(350000, 700000),
		p75:    r.intn(120000, 400000),
	}
	if a.network == Alpha {
		rt.reach = r.intn(600000, 900000)
	}
	return rt
}

// index links the account's objects: listing order, global id lookup, budget owners and the ads
// each owner pays for, and the curve weight of each lifetime flight.
func (s *Sim) index(a *account) {
	for i, o := range a.objects {
		o.ord = i
		o.key = strKey(o.id)
		s.objects[o.id] = o
		if o.budgetID != "" {
			s.budgetOwners[o.budgetID] = o
		}
		if o.budget != BudgetNone {
			a.owners = append(a.owners, o)
		}
	}
	for _, o := range a.objects {
		if o.level != LevelAd {
			continue
		}
		for x := o.parent; x != nil; x = x.parent {
			if x.budget != BudgetNone {
				o.owner = x
				x.ads = append(x.ads, o)
				break
			}
		}
	}
	for _, o := range a.owners {
		if o.budget == BudgetLifetime {
			for h := hourFloor(o.start); h < o.end; h += 3600 {
				o.flightW += s.weight(o, h)
			}
		}
	}
}
