package facts

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The business fact family (BusinessFamily; schema/clickhouse/0008: business_raw, rolled up into
// business_hourly and business_daily) holds every event and order of a project, attributed or
// not, keyed by where it came from, what was bought, how it was paid and by whom.

// The kinds of business row: its grain (see the migration's header).
const (
	BizEvent = "event" // one tracking event
	BizOrder = "order" // an order's state, product_id and product_name empty
	BizItem  = "item"  // one product of an order, its share of the order's money
)

// BizKeys are a business row's keys besides its project and time; empty text is missing.
type BizKeys struct {
	Kind string
	AdEntity
	UTMSource, UTMMedium, UTMCampaign, UTMContent, UTMTerm string
	ReferrerHost, LandingPath, Device                      string
	ProductID, ProductName, PaymentMethod, CustomerType    string
	Currency                                               string
}

// BizKeyColumns are the business tables' key columns of BizKeys (BusinessFamily.Keys), in the
// order of BizKeys.List.
var BizKeyColumns = BusinessFamily.KeyColumns()

// List returns k's values in the order of BizKeyColumns.
func (k *BizKeys) List() []string {
	return []string{k.Kind, k.Source, k.ConnectionID, k.AccountID, k.CampaignID, k.AdsetID, k.AdID,
		k.UTMSource, k.UTMMedium, k.UTMCampaign, k.UTMContent, k.UTMTerm, k.ReferrerHost, k.LandingPath, k.Device,
		k.ProductID, k.ProductName, k.PaymentMethod, k.CustomerType, k.Currency}
}

// Dest returns pointers to k's values in the order of BizKeyColumns (the destinations of a scan).
func (k *BizKeys) Dest() []any {
	return []any{&k.Kind, &k.Source, &k.ConnectionID, &k.AccountID, &k.CampaignID, &k.AdsetID, &k.AdID,
		&k.UTMSource, &k.UTMMedium, &k.UTMCampaign, &k.UTMContent, &k.UTMTerm, &k.ReferrerHost, &k.LandingPath,
		&k.Device, &k.ProductID, &k.ProductName, &k.PaymentMethod, &k.CustomerType, &k.Currency}
}

// BizFact is one signed row of business_raw; money is in micros of Currency.
type BizFact struct {
	ProjectID string
	Time      time.Time // truncated to the minute when written
	BizKeys
	Values Values // of BusinessFamily.Measures

	// OutboxID is the fact outbox row the fact came from, 0 for the backfill (as in Fact).
	OutboxID uint64
}

// InsertBizFacts writes business facts of projects in zone loc into business_raw as one batch.
func InsertBizFacts(ctx context.Context, conn driver.Conn, loc *time.Location, fs []BizFact) error {
	batch, err := conn.PrepareBatch(ctx, BusinessFamily.insertSQL("business_raw", nil, outboxColumn.Name, pairRollupsColumn.Name))
	if err != nil {
		return fmt.Errorf("facts: insert business facts: %w", err)
	}
	defer batch.Close()
	for i := range fs {
		f := &fs[i]
		minute, hour, day := Times(f.Time, loc)
		row := make([]any, 0, 4+len(BizKeyColumns)+len(BusinessFamily.Measures)+2)
		row = append(row, f.ProjectID, minute, hour, day)
		for _, k := range f.BizKeys.List() {
			row = append(row, k)
		}
		row = append(row, f.Values.Pick(BusinessFamily.Measures)...)
		// pair_rollups 1: the pair rollups' views count the row (schema/clickhouse/0017).
		if err := batch.Append(append(row, f.OutboxID, uint8(1))...); err != nil {
			return fmt.Errorf("facts: insert business facts: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert business facts: %w", err)
	}
	return nil
}

// BizChanges are the data versions that writing fs in the zone loc moves: the facts of each
// project and local day, which every answer over facts_* and business_* is keyed by.
func BizChanges(loc *time.Location, fs []BizFact) []Change {
	return factDays(loc, fs, func(f BizFact) (string, time.Time) { return f.ProjectID, f.Time })
}
