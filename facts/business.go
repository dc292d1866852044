package facts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// The business fact family (schema/clickhouse/0008: business_raw, rolled up into business_hourly
// and business_daily) holds every event and order of a project, attributed or not, keyed by where
// it came from, what was bought, how it was paid and by whom. Its measures are BizSpecs, kept
// apart from Specs since the ad facts have no net revenue nor units and the family no ad metrics.

// BizMeasure names one measure of the business family; a BizFact's Values hold each at its index.
type BizMeasure int

// The business family's measures, in the column order of its tables. Adding one takes a
// migration (the column in business_raw, its rollups and their views), its line here and in
// BizSpecs; the outbox and the writers derive their lists from BizSpecs.
const (
	BizPageViews BizMeasure = iota
	BizLeads
	BizInitiateCheckout
	BizTxRevenue
	BizTxRevenueNet
	BizTxCount
	BizTxCountTotal
	BizTxCountPending
	BizTxCountRefunded
	BizTxProductCosts
	BizTxUnits
	numBizMeasures
)

// BizSpecs are the business family's measures' descriptions, by BizMeasure (Spec.Ad is false for
// all).
var BizSpecs = [numBizMeasures]Spec{
	BizPageViews:        {Column: "page_views"},
	BizLeads:            {Column: "leads"},
	BizInitiateCheckout: {Column: "initiate_checkout"},
	BizTxRevenue:        {Column: "tx_revenue", Money: true},
	BizTxRevenueNet:     {Column: "tx_revenue_net", Money: true},
	BizTxCount:          {Column: "tx_count"},
	BizTxCountTotal:     {Column: "tx_count_total"},
	BizTxCountPending:   {Column: "tx_count_pending"},
	BizTxCountRefunded:  {Column: "tx_count_refunded"},
	BizTxProductCosts:   {Column: "tx_product_costs", Money: true},
	BizTxUnits:          {Column: "tx_units"},
}

// BizColumns lists the business measures' columns, separated by ", ".
func BizColumns() string {
	names := make([]string, numBizMeasures)
	for i, s := range BizSpecs {
		names[i] = s.Column
	}
	return strings.Join(names, ", ")
}

// BizValues are a business fact's measures, by BizMeasure.
type BizValues [numBizMeasures]int64

// Neg returns -v.
func (v BizValues) Neg() BizValues {
	for i := range v {
		v[i] = -v[i]
	}
	return v
}

// IsZero reports whether every measure is 0.
func (v BizValues) IsZero() bool { return v == BizValues{} }

// The kinds of business row: its grain (see the migration's header).
const (
	BizEvent = "event" // one tracking event
	BizOrder = "order" // an order's state, product_id and product_name empty
	BizItem  = "item"  // one product of an order, its share of the order's money
)

// BizKeys are a business row's keys besides its project and time; empty text is missing.
type BizKeys struct {
	Kind                                                       string
	Source, ConnectionID, AccountID, CampaignID, AdsetID, AdID string
	UTMSource, UTMMedium, UTMCampaign, UTMContent, UTMTerm     string
	ReferrerHost, LandingPath, Device                          string
	ProductID, ProductName, PaymentMethod, CustomerType        string
	Currency                                                   string
}

// BizKeyColumns are the business tables' key columns of BizKeys, in the order of BizKeys.List.
var BizKeyColumns = []string{"kind", "source", "connection_id", "account_id", "campaign_id", "adset_id", "ad_id",
	"utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term", "referrer_host", "landing_path", "device",
	"product_id", "product_name", "payment_method", "customer_type", "currency"}

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
	Values BizValues

	// OutboxID is the fact outbox row the fact came from, 0 for the backfill (as in Fact).
	OutboxID uint64
}

// InsertBizFacts writes business facts of projects in zone loc into business_raw as one batch.
func InsertBizFacts(ctx context.Context, conn driver.Conn, loc *time.Location, fs []BizFact) error {
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO business_raw (project_id, ts, hour, day, "+
		strings.Join(BizKeyColumns, ", ")+", "+BizColumns()+", outbox_id)")
	if err != nil {
		return fmt.Errorf("facts: insert business facts: %w", err)
	}
	defer batch.Close()
	for i := range fs {
		f := &fs[i]
		minute, hour, day := Times(f.Time, loc)
		row := make([]any, 0, 4+len(BizKeyColumns)+int(numBizMeasures)+1)
		row = append(row, f.ProjectID, minute, hour, day)
		for _, k := range f.BizKeys.List() {
			row = append(row, k)
		}
		for _, v := range f.Values {
			row = append(row, v)
		}
		if err := batch.Append(append(row, f.OutboxID)...); err != nil {
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
