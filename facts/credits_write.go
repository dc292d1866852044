package facts

import (
	"context"
	"fmt"
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

// InsertCredits writes batches into credits_raw as one INSERT: each row at its minute, local hour
// and local day in its batch's zone, as facts_raw's rows.
func InsertCredits(ctx context.Context, conn driver.Conn, batches []CreditBatch) error {
	lead := append(names(creditLead), CreditsFamily.Windows.Raw.Name)
	batch, err := conn.PrepareBatch(ctx, CreditsFamily.insertSQL("credits_raw", lead, outboxColumn.Name))
	if err != nil {
		return fmt.Errorf("facts: insert credits: %w", err)
	}
	defer batch.Close()
	for _, b := range batches {
		for _, c := range b.Credits {
			minute, hour, day := Times(c.Time, b.Zone)
			byClick := uint8(0)
			if c.ByClick {
				byClick = 1
			}
			row := []any{b.ProjectID, c.Model, c.Touches, byClick, c.WindowDays, minute, hour, day} // as insertSQL's columns
			row = append(append(append(append(row, c.Entity.values()...), c.Dims.Values()...), c.Currency), c.Values.Pick(CreditsFamily.Measures)...)
			row = append(row, b.OutboxID)
			if err := batch.Append(row...); err != nil {
				return fmt.Errorf("facts: insert credits: %w", err)
			}
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert credits: %w", err)
	}
	return nil
}
