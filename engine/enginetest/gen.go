// Package enginetest generates deterministic metric data (entities, ad facts, events, orders and
// daily exchange rates) for tests, benchmarks and `mtk seed demo`, and writes it to ClickHouse.
package enginetest

import (
	"fmt"
	"math/rand"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/facts"
)

// ProjectSpec describes one generated project.
type ProjectSpec struct {
	ID       string
	TimeZone string
	Currency string
	// Start is the first local day with data; Days how many days follow.
	Start time.Time
	Days  int
	// AccountCurrencies gives each source's ad account currency (default: the project's).
	AccountCurrencies map[string]string
	// SyncedAt, when set, shapes the ad facts as sync leaves them at that instant: at their
	// minute today (facts_raw; none after SyncedAt), summed per ad and local hour on the
	// HourlyDays days before (facts_hourly_in), per ad and local day before those
	// (facts_daily_in). Events and orders stay at their minute. Unset, every fact is raw.
	SyncedAt time.Time
	// HourlyDays is how many days before today sync keeps per hour, per source (default 7, as
	// sync's plan): a connection made later has fewer.
	HourlyDays map[string]int
	// Connections and Accounts give each source's connection and ad account id (default:
	// con_<project>_<n> and act_<project>_<n>), to fill a project that exists in PostgreSQL.
	Connections, Accounts map[string]string
}

// Config drives Generate. The same Config always gives the same data.
type Config struct {
	Seed     int64
	Projects []ProjectSpec
	// Campaigns, AdSets and Ads are per account, per campaign and per ad set (default 2 each).
	Campaigns, AdSets, Ads int
	// FactChance is the chance that an ad has a fact in a given hour (default 0.5).
	FactChance float64
	// MissingRates lists exchange rates left out, to exercise the missing-rate warning.
	MissingRates []RateKey
}

// RateKey names one day's rate of a currency pair.
type RateKey struct {
	Day         time.Time
	Base, Quote string
}

// Rate is one row of fx_rates: one unit of Base buys Rate units of Quote on Day.
type Rate struct {
	RateKey
	Rate decimal.Decimal
}

// Project is a generated project.
type Project struct {
	ProjectSpec
	Loc           *time.Location
	ConnectionIDs []string
}

// Dataset is everything Generate made.
type Dataset struct {
	Projects []Project
	Entities []facts.Entity
	// Facts land in facts_raw; HourFacts in facts_hourly_in, DayFacts in facts_daily_in (their
	// Time is the local date, at midnight UTC), as a sync batch writes them.
	Facts, HourFacts, DayFacts []facts.Fact
	Rates                      []Rate
}

// defaultHourlyDays is sync's HourlyDays (adsync can't be imported here: it imports engine).
const defaultHourlyDays = 7

// Currencies of the generated exchange rates.
var Currencies = []string{"BRL", "EUR", "USD"}

// usdValue is roughly what one unit buys in USD, the centre of the generated rates.
var usdValue = map[string]float64{"BRL": 0.2, "EUR": 1.08, "USD": 1}

func (c Config) withDefaults() Config {
	if c.Campaigns == 0 {
		c.Campaigns = 2
	}
	if c.AdSets == 0 {
		c.AdSets = 2
	}
	if c.Ads == 0 {
		c.Ads = 2
	}
	if c.FactChance == 0 {
		c.FactChance = 0.5
	}
	return c
}

// ad is one generated ad with its parents.
type ad struct {
	source, connection, account, campaign, adset, id, currency string
}

// Generate builds the dataset of cfg.
func Generate(cfg Config) (*Dataset, error) {
	cfg = cfg.withDefaults()
	r := rand.New(rand.NewSource(cfg.Seed))
	d := &Dataset{}
	first, last := time.Time{}, time.Time{}
	for _, spec := range cfg.Projects {
		loc, err := time.LoadLocation(spec.TimeZone)
		if err != nil {
			return nil, err
		}
		p := Project{ProjectSpec: spec, Loc: loc}
		ads := d.entities(r, cfg, &p)
		d.Projects = append(d.Projects, p)
		for day := 0; day < spec.Days; day++ {
			date := spec.Start.AddDate(0, 0, day)
			d.facts(r, cfg, p, ads, date)
			if first.IsZero() || date.Before(first) {
				first = date
			}
			if date.After(last) {
				last = date
			}
		}
	}
	missing := map[RateKey]bool{}
	for _, k := range cfg.MissingRates {
		missing[k] = true
	}
	// Rates cover one day either side, as a fact's local day may differ from its UTC day.
	for day := first.AddDate(0, 0, -1); !day.After(last.AddDate(0, 0, 1)); day = day.AddDate(0, 0, 1) {
		for _, b := range Currencies {
			for _, q := range Currencies {
				k := RateKey{Day: day, Base: b, Quote: q}
				if b == q || missing[k] {
					continue
				}
				jitter := 1 + (r.Float64()-0.5)/50
				v := decimal.NewFromFloat(usdValue[b] / usdValue[q] * jitter).Round(8)
				d.Rates = append(d.Rates, Rate{RateKey: k, Rate: v})
			}
		}
	}
	return d, nil
}

func (d *Dataset) entities(r *rand.Rand, cfg Config, p *Project) []ad {
	var ads []ad
	add := func(source, level, id, name, parent string) {
		d.Entities = append(d.Entities, facts.Entity{ProjectID: p.ID, Source: source, Level: level, ID: id,
			Name: name, ParentID: parent, Version: 1})
		if r.Intn(4) == 0 { // a rename: the later version wins
			d.Entities = append(d.Entities, facts.Entity{ProjectID: p.ID, Source: source, Level: level, ID: id,
				Name: name + " (renamed)", ParentID: parent, Version: 2})
		}
	}
	for si, source := range engine.Sources {
		cur := p.Currency
		if c, ok := p.AccountCurrencies[source]; ok {
			cur = c
		}
		conn := fmt.Sprintf("con_%s_%d", p.ID, si)
		if id, ok := p.Connections[source]; ok {
			conn = id
		}
		p.ConnectionIDs = append(p.ConnectionIDs, conn)
		acc := fmt.Sprintf("act_%s_%d", p.ID, si)
		if id, ok := p.Accounts[source]; ok {
			acc = id
		}
		add(source, "account", acc, fmt.Sprintf("Account %s %d", source, si), "")
		for c := 0; c < cfg.Campaigns; c++ {
			camp := fmt.Sprintf("%s_c%d", acc, c)
			add(source, "campaign", camp, fmt.Sprintf("Campaign %c%d Summer", 'A'+si, c), acc)
			for s := 0; s < cfg.AdSets; s++ {
				set := fmt.Sprintf("%s_s%d", camp, s)
				add(source, "adset", set, fmt.Sprintf("Audience %d-%d", c, s), camp)
				for a := 0; a < cfg.Ads; a++ {
					id := fmt.Sprintf("%s_a%d", set, a)
					// Some ads never get a name, like entities the sync has not seen yet.
					if r.Intn(8) != 0 {
						add(source, "ad", id, fmt.Sprintf("Creative %d_%d_%d video", c, s, a), set)
					}
					ads = append(ads, ad{source: source, connection: conn, account: acc, campaign: camp,
						adset: set, id: id, currency: cur})
				}
			}
		}
	}
	return ads
}

// facts adds the facts of one local day: ad metrics at random minutes, and business facts
// (events and orders) linked to an ad, an ad set or only a campaign, some of them corrections.
// With p.SyncedAt, the ad metrics are then placed as sync places them (see Config).
func (d *Dataset) facts(r *rand.Rand, cfg Config, p Project, ads []ad, date time.Time) {
	start := engine.DayStart(date, p.Loc)
	end := engine.DayStart(date.AddDate(0, 0, 1), p.Loc)
	var adFacts []facts.Fact
	for h := start; h.Before(end); h = h.Add(time.Hour) {
		for _, a := range ads {
			if r.Float64() >= cfg.FactChance {
				continue
			}
			at := h.Add(time.Duration(r.Intn(60)) * time.Minute)
			if !at.Before(end) {
				continue
			}
			adFacts = append(adFacts, adFact(r, p, a, at))
			if r.Intn(6) == 0 {
				d.Facts = append(d.Facts, businessFact(r, p, a, at.Add(time.Duration(r.Intn(50))*time.Minute)))
			}
		}
	}
	if p.SyncedAt.IsZero() {
		d.Facts = append(d.Facts, adFacts...)
		return
	}
	y, m, dd := p.SyncedAt.In(p.Loc).Date()
	today := time.Date(y, m, dd, 0, 0, 0, 0, time.UTC)
	buckets := map[string]*facts.Fact{} // one summed fact per ad and bucket
	var hours, days []*facts.Fact
	for _, f := range adFacts {
		hourly := defaultHourlyDays
		if n, ok := p.HourlyDays[f.Source]; ok {
			hourly = n
		}
		switch {
		case date.After(today) || (date.Equal(today) && f.Time.After(p.SyncedAt)):
		case date.Equal(today):
			d.Facts = append(d.Facts, f)
		case !date.Before(today.AddDate(0, 0, -hourly)):
			f.Time = facts.HourStart(f.Time, p.Loc).UTC()
			hours = sumInto(buckets, hours, f)
		default:
			f.Time = date
			days = sumInto(buckets, days, f)
		}
	}
	for _, f := range hours {
		d.HourFacts = append(d.HourFacts, *f)
	}
	for _, f := range days {
		d.DayFacts = append(d.DayFacts, *f)
	}
}

// sumInto adds f's ad metrics to its ad's bucket (by Time) in buckets, appending a new bucket to
// order.
func sumInto(buckets map[string]*facts.Fact, order []*facts.Fact, f facts.Fact) []*facts.Fact {
	k := f.Time.String() + "|" + f.ConnectionID + "|" + f.AdID
	g, ok := buckets[k]
	if !ok {
		buckets[k] = &f
		return append(order, &f)
	}
	for _, m := range facts.AdMeasures {
		g.Values[m] += f.Values[m]
	}
	return order
}

func base(p Project, a ad, at time.Time) facts.Fact {
	return facts.Fact{ProjectID: p.ID, Time: at.UTC(), AdEntity: facts.AdEntity{Source: a.source, ConnectionID: a.connection, AccountID: a.account, CampaignID: a.campaign, AdsetID: a.adset, AdID: a.id}, Currency: a.currency}
}

func adFact(r *rand.Rand, p Project, a ad, at time.Time) facts.Fact {
	f := base(p, a, at)
	v := &f.Values
	v[facts.Impressions] = int64(r.Intn(2000))
	v[facts.Clicks] = int64(r.Intn(int(v[facts.Impressions]/20 + 1)))
	v[facts.Spend] = int64(r.Intn(5_000_000)) // micros
	if r.Intn(10) == 0 {
		v[facts.Spend] = 0
	}
	if a.source == "alpha_ads" {
		v[facts.Reach] = v[facts.Impressions] * int64(60+r.Intn(40)) / 100
	}
	v[facts.VideoPlays] = int64(r.Intn(int(v[facts.Impressions]/4 + 1)))
	v[facts.VideoViews3s] = int64(r.Intn(int(v[facts.VideoPlays] + 1)))
	v[facts.VideoViewsP75] = int64(r.Intn(int(v[facts.VideoViews3s] + 1)))
	if r.Intn(25) == 0 { // a restatement: a signed correction of an earlier figure
		v[facts.Impressions], v[facts.Clicks], v[facts.Spend] = -v[facts.Impressions]/10, 0, -v[facts.Spend]/10
		v[facts.Reach], v[facts.VideoPlays], v[facts.VideoViews3s], v[facts.VideoViewsP75] = 0, 0, 0, 0
	}
	return f
}

func businessFact(r *rand.Rand, p Project, a ad, at time.Time) facts.Fact {
	f := base(p, a, at)
	v := &f.Values
	switch r.Intn(4) {
	case 0: // linked by utm_campaign only
		f.AdsetID, f.AdID = "", ""
	case 1: // linked down to the ad set
		f.AdID = ""
	}
	f.Currency = Currencies[r.Intn(len(Currencies))]
	v[facts.PageViews] = int64(r.Intn(40))
	v[facts.Leads] = int64(r.Intn(4))
	v[facts.InitiateCheckout] = int64(r.Intn(3))
	v[facts.TxCountTotal] = int64(r.Intn(3))
	v[facts.TxCount] = int64(r.Intn(int(v[facts.TxCountTotal] + 1)))
	v[facts.TxCountPending] = v[facts.TxCountTotal] - v[facts.TxCount]
	v[facts.TxRevenue] = v[facts.TxCount] * int64(1000+r.Intn(20000)) * 10_000 // cents as micros
	v[facts.TxProductCosts] = v[facts.TxRevenue] * int64(r.Intn(60)) / 100 / 10_000 * 10_000
	if r.Intn(10) == 0 { // an order refunded later: a signed difference
		v[facts.TxCountRefunded] = 1
		v[facts.TxCount], v[facts.TxRevenue], v[facts.TxProductCosts] = -1, -int64(1000+r.Intn(2000))*10_000, 0
	}
	return f
}

// Demo is a ready configuration: three projects in Sao Paulo (BRL), New York (USD, with its
// DST changes) and Kolkata (EUR, +05:30), each with accounts in BRL, USD and EUR, over the days
// days that end with last (a local date).
func Demo(seed int64, last time.Time, days int) Config {
	start := last.AddDate(0, 0, 1-days)
	return Config{Seed: seed, Projects: []ProjectSpec{
		{ID: "prj_demo_sp", TimeZone: "America/Sao_Paulo", Currency: "BRL", Start: start, Days: days,
			AccountCurrencies: map[string]string{"beta_ads": "USD", "gamma_ads": "EUR"}},
		{ID: "prj_demo_ny", TimeZone: "America/New_York", Currency: "USD", Start: start, Days: days,
			AccountCurrencies: map[string]string{"beta_ads": "BRL", "gamma_ads": "EUR"}},
		{ID: "prj_demo_in", TimeZone: "Asia/Kolkata", Currency: "EUR", Start: start, Days: days,
			AccountCurrencies: map[string]string{"alpha_ads": "USD", "beta_ads": "BRL"}},
	}}
}
