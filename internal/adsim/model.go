package adsim

import (
	"sort"
	"sync/atomic"
	"time"
)

// Network names one simulated ad network, as mtk's enumerations spell it.
type Network string

// The three simulated networks.
const (
	Alpha Network = "alpha_ads" // Meta-like Graph API under /alpha/
	Beta  Network = "beta_ads"  // Google-Ads-like GAQL API under /beta/
	Gamma Network = "gamma_ads" // TikTok-like Business API under /gamma/
)

// Networks lists the simulated networks in a fixed order.
var Networks = []Network{Alpha, Beta, Gamma}

// Level is a level of the object tree.
type Level string

// The levels. Beta and gamma call ad sets "ad groups"; the simulator uses one name internally.
const (
	LevelAccount  Level = "account"
	LevelCampaign Level = "campaign"
	LevelAdSet    Level = "adset"
	LevelAd       Level = "ad"
)

// Status is the configured status of an object. Each network spells it its own way on the wire
// (ENABLED, ENABLE, ...); this is the simulator's neutral form.
type Status string

// The two statuses that can be written.
const (
	Active Status = "ACTIVE"
	Paused Status = "PAUSED"
)

// BudgetKind says how an object's budget is spent.
type BudgetKind string

// Budget kinds. An object with BudgetNone takes its budget from an ancestor.
const (
	BudgetNone     BudgetKind = ""
	BudgetDaily    BudgetKind = "daily"
	BudgetLifetime BudgetKind = "lifetime"
)

// Metrics are the base metrics of one entity in one bucket. Spend is in minor units of the
// account currency (cents); the rest are counts. Reach is computed for alpha_ads only.
type Metrics struct {
	Spend         int64 `json:"spend_minor"`
	Impressions   int64 `json:"impressions"`
	Clicks        int64 `json:"clicks"`
	Reach         int64 `json:"reach"`
	VideoPlays    int64 `json:"video_plays"`
	VideoViews3s  int64 `json:"video_views_3s"`
	VideoViewsP75 int64 `json:"video_views_p75"`
}

// Add adds o to m.
func (m *Metrics) Add(o Metrics) {
	m.Spend += o.Spend
	m.Impressions += o.Impressions
	m.Clicks += o.Clicks
	m.Reach += o.Reach
	m.VideoPlays += o.VideoPlays
	m.VideoViews3s += o.VideoViews3s
	m.VideoViewsP75 += o.VideoViewsP75
}

// IsZero reports whether every metric is zero.
func (m Metrics) IsZero() bool { return m == Metrics{} }

// account is one simulated ad account with its object tree.
type account struct {
	network   Network
	id        string // as the network's API addresses it
	displayID string // beta: 123-456-7890; others: id
	name      string
	currency  string
	exp       int // minor-unit digits of currency
	tz        string
	loc       *time.Location
	token     string
	pixelID   string // alpha only
	created   int64  // Unix second
	campaigns []*object
	objects   []*object // campaigns, ad sets, ads, in listing order (object.ord indexes it)
	owners    []*object // objects that hold a budget
}

// ofLevel returns the account's objects of one level, in listing order.
func (a *account) ofLevel(l Level) []*object {
	var out []*object
	for _, o := range a.objects {
		if o.level == l {
			out = append(out, o)
		}
	}
	return out
}

type statusChange struct {
	at     int64
	status Status
}

type budgetChange struct {
	at     int64
	amount int64 // minor units
	api    bool  // made through a write, so it counts toward the hourly limit
}

// object is a campaign, ad set or ad. Its identity and rates are fixed at generation; its status
// and budget histories grow with writes (guarded by Sim.mu).
// title is the object's name now.
func (o *object) title() string {
	if n := o.renamed.Load(); n != nil {
		return *n
	}
	return o.name
}

type object struct {
	id        string
	level     Level
	name      string                 // as generated; see title
	renamed   atomic.Pointer[string] // set by Rename, read by requests without the lock
	objective string                 // campaigns: the network's objective or channel type
	acct      *account
	parent    *object
	children  []*object
	ord       int    // index in acct.objects
	key       uint64 // hash of id, for per-object randomness
	start     int64  // Unix second the object starts delivering
	end       int64  // Unix second it stops (0: never); lifetime budgets always have one
	budget    BudgetKind
	budgetID  string // beta: the campaign budget resource id
	statuses  []statusChange
	budgets   []budgetChange

	// Budget owners only.
	ads     []*object // every ad below, in listing order
	flightW int64     // lifetime: sum of the curve weights over the flight

	// Ads only.
	owner  *object
	rates  adRates
	weight int64 // share of the owner's spend
}

// adRates turn an ad's spend into the other metrics.
type adRates struct {
	cpm    int64 // minor units per 1000 impressions
	ctr    int64 // clicks per million impressions
	play   int64 // plays per million impressions
	view3s int64 // 3-second views per million plays
	p75    int64 // 75% views per million 3-second views
	reach  int64 // reach per million impressions (alpha only, else 0)
}

// ancestor returns o or its ancestor at level l (nil for LevelAccount).
func (o *object) ancestor(l Level) *object {
	for x := o; x != nil; x = x.parent {
		if x.level == l {
			return x
		}
	}
	return nil
}

// statusAt is the configured status at Unix second t.
func (o *object) statusAt(t int64) Status {
	i := sort.Search(len(o.statuses), func(i int) bool { return o.statuses[i].at > t })
	if i == 0 {
		return o.statuses[0].status
	}
	return o.statuses[i-1].status
}

// budgetAt is the budget amount at Unix second t (0 for objects without a budget).
func (o *object) budgetAt(t int64) int64 {
	if len(o.budgets) == 0 {
		return 0
	}
	i := sort.Search(len(o.budgets), func(i int) bool { return o.budgets[i].at > t })
	if i == 0 {
		return o.budgets[0].amount
	}
	return o.budgets[i-1].amount
}

// liveAt reports whether o and all its ancestors deliver at Unix second t.
func (o *object) liveAt(t int64) bool {
	for x := o; x != nil; x = x.parent {
		if t < x.start || (x.end != 0 && t >= x.end) || x.statusAt(t) != Active {
			return false
		}
	}
	return true
}

// effectiveStatus is Meta's effective_status of o at t: its own pause first, then the nearest
// paused ancestor's.
func (o *object) effectiveStatus(t int64) string {
	if o.statusAt(t) != Active {
		return string(Paused)
	}
	for x := o.parent; x != nil; x = x.parent {
		if x.statusAt(t) != Active {
			if x.level == LevelCampaign {
				return "CAMPAIGN_PAUSED"
			}
			return "ADSET_PAUSED"
		}
	}
	return string(Active)
}

// insertStatus records a status change at t, keeping the history sorted.
func (o *object) insertStatus(c statusChange) {
	i := sort.Search(len(o.statuses), func(i int) bool { return o.statuses[i].at > c.at })
	o.statuses = append(o.statuses, statusChange{})
	copy(o.statuses[i+1:], o.statuses[i:])
	o.statuses[i] = c
}

// insertBudget records a budget change at t, keeping the history sorted.
func (o *object) insertBudget(c budgetChange) {
	i := sort.Search(len(o.budgets), func(i int) bool { return o.budgets[i].at > c.at })
	o.budgets = append(o.budgets, budgetChange{})
	copy(o.budgets[i+1:], o.budgets[i:])
	o.budgets[i] = c
}
