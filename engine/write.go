package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Fact is one additive fact row: ad-network metrics, or business facts (events, orders) that
// attribution linked to an ad entity, or both. A restated metric or an upserted order is written
// as a signed correcting difference. Money is in micros (1e-6) of Currency.
type Fact struct {
	ProjectID    string
	Time         time.Time // truncated to the minute when written
	Source       string
	ConnectionID string
	AccountID    string
	CampaignID   string
	AdsetID      string
	AdID         string
	Currency     string

	Spend, Impressions, Clicks, Reach                                 int64
	VideoPlays, VideoViews3s, VideoViewsP75                           int64
	PageViews, Leads, InitiateCheckout                                int64
	TxRevenue, TxCount, TxCountTotal, TxCountPending, TxCountRefunded int64
	TxProductCosts                                                    int64

	// OutboxID is the ingest fact outbox row the fact came from, 0 for any other writer: the
	// outbox drainer finds what a crashed run already wrote by it.
	OutboxID uint64
}

// Entity is one version of an ad account, campaign, ad set or ad; the highest Version wins.
type Entity struct {
	ProjectID string
	Source    string
	Level     string // account, campaign, adset or ad
	ID        string
	Name      string
	ParentID  string
	Version   uint64
}

// MicrosPerMinor is how many micros (the unit of every money measure) one minor unit of a
// two-decimal currency (a cent) is.
const MicrosPerMinor = 10_000

// The instants a fact may have: ClickHouse's DateTime holds 1970 to 2106 (an unsigned 32-bit
// count of seconds), and a day is kept inside it in every zone. A time outside wraps around
// silently (1965 becomes 2101), so writers refuse it.
var (
	MinFactTime = time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC)
	MaxFactTime = time.Date(2106, 1, 1, 0, 0, 0, 0, time.UTC)
)

// FactTimeOK reports whether a fact may have the instant t (see MinFactTime).
func FactTimeOK(t time.Time) bool { return !t.Before(MinFactTime) && t.Before(MaxFactTime) }

// FactTimes are the stored times of a fact at t in the project's zone: its minute, the start of
// its local hour, and its local day (midnight UTC of that date).
func FactTimes(t time.Time, loc *time.Location) (minute, hour, day time.Time) {
	minute = t.UTC().Truncate(time.Minute)
	return minute, HourStart(minute, loc).UTC(), civil(minute, loc)
}

// InsertFacts writes facts of projects in zone loc as one batch.
func InsertFacts(ctx context.Context, conn driver.Conn, loc *time.Location, facts []Fact) error {
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO facts_raw (project_id, ts, hour, day, source, connection_id, "+
		"account_id, campaign_id, adset_id, ad_id, currency, spend, impressions, clicks, reach, video_plays, "+
		"video_views_3s, video_views_p75, page_views, leads, initiate_checkout, tx_revenue, tx_count, "+
		"tx_count_total, tx_count_pending, tx_count_refunded, tx_product_costs, outbox_id)")
	if err != nil {
		return fmt.Errorf("engine: insert facts: %w", err)
	}
	defer batch.Close()
	for _, f := range facts {
		minute, hour, day := FactTimes(f.Time, loc)
		if err := batch.Append(f.ProjectID, minute, hour, day, f.Source, f.ConnectionID, f.AccountID, f.CampaignID,
			f.AdsetID, f.AdID, f.Currency, f.Spend, f.Impressions, f.Clicks, f.Reach, f.VideoPlays, f.VideoViews3s,
			f.VideoViewsP75, f.PageViews, f.Leads, f.InitiateCheckout, f.TxRevenue, f.TxCount, f.TxCountTotal,
			f.TxCountPending, f.TxCountRefunded, f.TxProductCosts, f.OutboxID); err != nil {
			return fmt.Errorf("engine: insert facts: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("engine: insert facts: %w", err)
	}
	return nil
}

// InsertEntities writes entity versions as one batch.
func InsertEntities(ctx context.Context, conn driver.Conn, entities []Entity) error {
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO entities (project_id, source, level, entity_id, name, parent_id, version)")
	if err != nil {
		return fmt.Errorf("engine: insert entities: %w", err)
	}
	defer batch.Close()
	for _, e := range entities {
		if err := batch.Append(e.ProjectID, e.Source, e.Level, e.ID, e.Name, e.ParentID, e.Version); err != nil {
			return fmt.Errorf("engine: insert entities: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("engine: insert entities: %w", err)
	}
	return nil
}
