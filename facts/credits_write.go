package facts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// CreditBatch is credit rows of one project in zone Zone, from one credit_outbox row (OutboxID;
// 0 for any other writer).
type CreditBatch struct {
	ProjectID string
	Zone      *time.Location
	OutboxID  uint64
	Credits   []Credit
}

// creditsRaw is the table credits are written to; its views feed the rollups
// (schema/clickhouse/0015).
const creditsRaw = "credits_raw"

// InsertCredits writes batches into credits_raw as one INSERT: each credit at its minute, local
// hour and local day in its batch's zone, as facts_raw's rows. credits_raw's views write each
// row into both rollups with its own window_days, so that one statement keeps the credit
// drainer's exactly-once look-up of credits_raw.outbox_id and its query fence whole: the rollups
// land with the raw rows or not at all. The deltas of each credit_outbox row are netted first
// (NetCredits); when nothing is left, nothing is sent.
func InsertCredits(ctx context.Context, conn driver.Conn, batches []CreditBatch) error {
	cols := creditRows(NetCredits(batches))
	if len(cols.outbox) == 0 {
		return nil
	}
	names := CreditsFamily.ColumnNames(creditsRaw)
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO "+creditsRaw+" ("+strings.Join(names, ", ")+")")
	if err != nil {
		return fmt.Errorf("facts: insert credits: %w", err)
	}
	defer batch.Close()
	for i, name := range names {
		if err := batch.Column(i).Append(cols.column(name)); err != nil {
			return fmt.Errorf("facts: insert credits: column %s: %w", name, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert credits: %w", err)
	}
	return nil
}

// creditColumns are credits_raw's rows as columns, each named as the table's column.
type creditColumns struct {
	byClick, windowDays     []uint8
	project, model, touches []string
	ts, hour, day           []time.Time
	keys                    [][]string // of CreditsFamily.Keys
	measures                [][]int64  // of CreditsFamily.Measures
	outbox                  []uint64
}

// minuteColumns are the time columns of credits_raw: ts, hour, day.
var minuteColumns = Minute.TimeColumns()

// creditRows are the raw rows of batches' credits, in order. The columns are made at their
// final size: a drain batch lands about a hundred thousand rows.
func creditRows(batches []CreditBatch) *creditColumns {
	n := 0
	for _, b := range batches {
		n += len(b.Credits)
	}
	c := newCreditColumns(n)
	for _, b := range batches {
		for i := range b.Credits {
			cr := &b.Credits[i]
			click := uint8(0)
			if cr.ByClick {
				click = 1
			}
			minute, hour, day := Times(cr.Time, b.Zone)
			c.byClick, c.windowDays = append(c.byClick, click), append(c.windowDays, cr.WindowDays)
			c.project, c.model, c.touches = append(c.project, b.ProjectID), append(c.model, cr.Model), append(c.touches, cr.Touches)
			c.ts, c.hour, c.day = append(c.ts, minute), append(c.hour, hour), append(c.day, day)
			for k, v := range creditKeyValues(cr) {
				c.keys[k] = append(c.keys[k], v)
			}
			for k, m := range CreditsFamily.Measures {
				c.measures[k] = append(c.measures[k], cr.Values[m])
			}
			c.outbox = append(c.outbox, b.OutboxID)
		}
	}
	return c
}

// creditKeyValues are cr's values of CreditsFamily.Keys, in their order: the entity's, the
// dimensions', the currency. An array, not a slice: a drain batch's hundred thousand rows made
// two slices each, a fifth of the drainer's CPU (benchmarks/credits -cpuprofile).
func creditKeyValues(cr *Credit) [creditKeyCount]string {
	e, d := &cr.Entity, &cr.Dims
	return [creditKeyCount]string{e.Source, e.ConnectionID, e.AccountID, e.CampaignID, e.AdsetID, e.AdID,
		d.UTMSource, d.UTMMedium, d.UTMCampaign, d.UTMContent, d.UTMTerm, d.ReferrerHost, d.LandingPath, d.Device,
		cr.Currency}
}

// creditKeyCount is the number of CreditsFamily.Keys (TestCreditKeyValuesFollowTheKeys).
const creditKeyCount = 15

// newCreditColumns are empty columns of room for n rows.
func newCreditColumns(n int) *creditColumns {
	c := &creditColumns{byClick: make([]uint8, 0, n), windowDays: make([]uint8, 0, n), project: make([]string, 0, n), model: make([]string, 0, n),
		touches: make([]string, 0, n), ts: make([]time.Time, 0, n), hour: make([]time.Time, 0, n), day: make([]time.Time, 0, n),
		keys: make([][]string, len(CreditsFamily.Keys)), measures: make([][]int64, len(CreditsFamily.Measures)),
		outbox: make([]uint64, 0, n)}
	for i := range c.keys {
		c.keys[i] = make([]string, 0, n)
	}
	for i := range c.measures {
		c.measures[i] = make([]int64, 0, n)
	}
	return c
}

// column is the column of that name of credits_raw.
func (c *creditColumns) column(name string) any {
	switch name {
	case projectColumn.Name:
		return c.project
	case creditLead[0].Name:
		return c.model
	case creditLead[1].Name:
		return c.touches
	case creditLead[2].Name:
		return c.byClick
	case creditWindow.Name:
		return c.windowDays
	case minuteColumns[0].Name:
		return c.ts
	case minuteColumns[1].Name:
		return c.hour
	case minuteColumns[2].Name:
		return c.day
	case outboxColumn.Name:
		return c.outbox
	}
	for i, k := range CreditsFamily.Keys {
		if k.Name == name {
			return c.keys[i]
		}
	}
	for i, m := range CreditsFamily.Measures {
		if Specs[m].Column == name {
			return c.measures[i]
		}
	}
	panic("facts: credits_raw has no column " + name)
}
