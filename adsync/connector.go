package adsync

import (
	"context"
	"errors"
	"fmt"

	"mtk/facts"
)

// The object levels, as the engine's entities name them.
const (
	LevelAccount  = "account"
	LevelCampaign = "campaign"
	LevelAdset    = "adset"
	LevelAd       = "ad"
)

// The statuses of an object, as the objects route names them.
const (
	StatusActive = "ACTIVE"
	StatusPaused = "PAUSED"
)

// The kinds of budget an object may hold.
const (
	BudgetDaily    = "daily"
	BudgetLifetime = "lifetime"
)

// Account is an ad account as its network describes it.
type Account struct {
	ID       string
	Name     string
	Currency string
	TimeZone string
}

// Object is a campaign, ad set or ad. BudgetKind is empty when the object holds no budget;
// BudgetMicros is then 0. BudgetRef is the network's handle of the budget when it is an object
// of its own (beta's campaign budgets).
type Object struct {
	Level        string
	ID           string
	ParentID     string
	CampaignID   string
	Name         string
	Status       string
	BudgetKind   string
	BudgetMicros int64
	BudgetRef    string
}

// Grain is the size of an insights bucket.
type Grain int

// The grains of insights.
const (
	GrainDay Grain = iota
	GrainHour
)

// DayBucket is the Hour of a day-grain row.
const DayBucket = -1

// Insight is one ad's metrics in one bucket: a local date of the account, and a local hour
// (0-23) or DayBucket.
type Insight struct {
	AdID, AdsetID, CampaignID string
	Date                      string // YYYY-MM-DD in the account's time zone
	Hour                      int
	// Metrics are the bucket's ad measures (facts.AdMeasures); spend in micros of the account
	// currency.
	Metrics facts.Values
}

// Update is one change of an object: a status or a budget in minor units (cents). For a
// budget, Object is the stored object, whose kind and handle say where the budget goes.
type Update struct {
	Object Object
	Status string
	Budget int64
}

// Connector talks to one ad account of one network.
type Connector interface {
	// Account describes the ad account.
	Account(ctx context.Context) (Account, error)
	// Objects lists every campaign, ad set and ad with names, statuses and budgets.
	Objects(ctx context.Context) ([]Object, error)
	// Insights returns the ads' metrics per day or per hour for local dates since..until
	// (inclusive), leaving out buckets without delivery.
	Insights(ctx context.Context, since, until string, g Grain) ([]Insight, error)
	// HasReach reports whether day rows carry reach (hour rows never do).
	HasReach() bool
	// SetStatus changes the status of objects of one level, in batches the network accepts;
	// the answer has one error (nil for success) per update, in order.
	SetStatus(ctx context.Context, level string, updates []Update) []error
	// SetBudget changes budgets likewise.
	SetBudget(ctx context.Context, level string, updates []Update) []error
}

// ErrNoCredentials is what a ConnectorFunc returns (wrapped) for an ad network connection that
// lacks its API base URL, access token or account id: nothing can call its network until it has
// them (`mtk connection create` takes them).
var ErrNoCredentials = errors.New("no API base URL, access token or account id")

// Credentials say where and how to call a network for one account.
type Credentials struct {
	BaseURL     string // the network's API root, e.g. http://127.0.0.1:18900/alpha/v19.0
	AccessToken string
	AccountID   string
}

// ErrorEach returns n copies of err: the answer of a batch that failed as a whole.
func ErrorEach(n int, err error) []error {
	out := make([]error, n)
	for i := range out {
		out[i] = err
	}
	return out
}

// UnknownLevel is the error for a write on a level the network has no such write for.
func UnknownLevel(level string) error { return fmt.Errorf("level %q cannot be changed", level) }
