package adsim

import (
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
	_ "time/tzdata" // the account time zones must not depend on the host's zoneinfo

	"mtk/internal/clock"
)

// Sim is a running simulated world. It is safe for concurrent use.
type Sim struct {
	cfg   Config
	start int64 // Unix second of Config.Start

	// Fixed after New.
	accounts []*account
	objects  map[string]*object
	// budgetOwners finds beta campaigns by their campaign budget id.
	budgetOwners map[string]*object
	tokens       map[string]*account
	taken        map[string]bool

	mu sync.RWMutex // guards every object's status and budget history

	mux    *http.ServeMux
	seq    atomic.Uint64 // numbers API requests, for trace ids and the fault rate
	quota  quota
	faults faultState
	capi   capiStore
}

// New generates the world of cfg.
func New(cfg Config) (*Sim, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Sim{
		cfg:          cfg,
		start:        cfg.Start.Unix(),
		objects:      map[string]*object{},
		budgetOwners: map[string]*object{},
		tokens:       map[string]*account{},
		taken:        map[string]bool{},
	}
	s.quota.perMinute = cfg.QuotaPerMinute
	if err := s.generate(); err != nil {
		return nil, err
	}
	s.mux = http.NewServeMux()
	s.alphaRoutes(s.mux)
	s.betaRoutes(s.mux)
	s.gammaRoutes(s.mux)
	s.adminRoutes(s.mux)
	return s, nil
}

// Clock returns the simulator's clock.
func (s *Sim) Clock() clock.Clock { return s.cfg.Clock }

func (s *Sim) now() int64 { return s.cfg.Clock.Now().Unix() }

// Handler serves the three networks' APIs and the admin endpoints (see the package README).
func (s *Sim) Handler() http.Handler { return s.mux }

// AccountInfo describes one simulated account and how to call its network for it.
type AccountInfo struct {
	Network   Network `json:"network"`
	ID        string  `json:"id"`         // as the API addresses it: act_<digits>, <10 digits>, <19 digits>
	DisplayID string  `json:"display_id"` // beta: 123-456-7890; others: ID
	Name      string  `json:"name"`
	Currency  string  `json:"currency"`
	TimeZone  string  `json:"time_zone"`
	// AccessToken authorizes requests for this account (and only this one).
	AccessToken string `json:"access_token"`
	// DeveloperToken is the developer-token header beta requires.
	DeveloperToken string `json:"developer_token,omitempty"`
	// PixelID is the alpha pixel that takes conversions events with AccessToken.
	PixelID string `json:"pixel_id,omitempty"`
	// BasePath is where this account's API starts, e.g. /alpha/v19.0/act_123.
	BasePath string `json:"base_path"`
}

// Accounts lists every account, network by network.
func (s *Sim) Accounts() []AccountInfo {
	out := make([]AccountInfo, 0, len(s.accounts))
	for _, a := range s.accounts {
		info := AccountInfo{Network: a.network, ID: a.id, DisplayID: a.displayID, Name: a.name,
			Currency: a.currency, TimeZone: a.tz, AccessToken: a.token, PixelID: a.pixelID}
		switch a.network {
		case Alpha:
			info.BasePath = "/alpha/" + alphaVersion + "/" + a.id
		case Beta:
			info.BasePath = "/beta/" + betaVersion + "/customers/" + a.id
			info.DeveloperToken = s.cfg.DeveloperToken
		case Gamma:
			info.BasePath = "/gamma/open_api/v1.3"
		}
		out = append(out, info)
	}
	return out
}

// ObjectInfo is one campaign, ad set or ad as of now.
type ObjectInfo struct {
	Network    Network    `json:"network"`
	AccountID  string     `json:"account_id"`
	ID         string     `json:"id"`
	Level      Level      `json:"level"`
	Name       string     `json:"name"`
	ParentID   string     `json:"parent_id,omitempty"`
	CampaignID string     `json:"campaign_id"`
	Status     Status     `json:"status"`
	Live       bool       `json:"live"` // it and its ancestors are active and inside their flight
	BudgetKind BudgetKind `json:"budget_kind,omitempty"`
	Budget     int64      `json:"budget_minor,omitempty"`
	BudgetID   string     `json:"budget_id,omitempty"` // beta campaign budgets
	Start      time.Time  `json:"start"`
	End        *time.Time `json:"end,omitempty"`
}

// Objects lists an account's objects (campaigns, then each one's ad sets and ads, depth first).
func (s *Sim) Objects(n Network, accountID string) ([]ObjectInfo, error) {
	a := s.account(n, accountID)
	if a == nil {
		return nil, fmt.Errorf("adsim: no %s account %q", n, accountID)
	}
	now := s.now()
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]ObjectInfo, 0, len(a.objects))
	for _, o := range a.objects {
		out = append(out, o.info(now))
	}
	return out, nil
}

// info snapshots o at now; the caller holds s.mu.
func (o *object) info(now int64) ObjectInfo {
	oi := ObjectInfo{Network: o.acct.network, AccountID: o.acct.id, ID: o.id, Level: o.level, Name: o.title(),
		CampaignID: o.ancestor(LevelCampaign).id, Status: o.statusAt(now), Live: o.liveAt(now),
		BudgetKind: o.budget, Budget: o.budgetAt(now), BudgetID: o.budgetID, Start: time.Unix(o.start, 0).UTC()}
	if o.parent != nil {
		oi.ParentID = o.parent.id
	}
	if o.end != 0 {
		end := time.Unix(o.end, 0).UTC()
		oi.End = &end
	}
	return oi
}

// account finds an account by network and id (beta also by its dashed display id).
func (s *Sim) account(n Network, id string) *account {
	for _, a := range s.accounts {
		if a.network == n && (a.id == id || a.displayID == id) {
			return a
		}
	}
	return nil
}
