package facts

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// entityDims are the values of the keys of the ad facts (FactsFamily.Keys).
func entityDims(e AdEntity, currency string) []any {
	return append(e.values(), currency)
}

// InsertFacts writes facts of projects in zone loc into facts_raw as one batch.
func InsertFacts(ctx context.Context, conn driver.Conn, loc *time.Location, facts []Fact) error {
	batch, err := conn.PrepareBatch(ctx, FactsFamily.insertSQL("facts_raw", nil, outboxColumn.Name))
	if err != nil {
		return fmt.Errorf("facts: insert facts: %w", err)
	}
	defer batch.Close()
	for _, f := range facts {
		minute, hour, day := Times(f.Time, loc)
		row := append(append([]any{f.ProjectID, minute, hour, day}, entityDims(f.AdEntity, f.Currency)...), f.Values.Pick(FactsFamily.Measures)...)
		if err := batch.Append(append(row, f.OutboxID)...); err != nil {
			return fmt.Errorf("facts: insert facts: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert facts: %w", err)
	}
	return nil
}

// InsertEntities writes entity versions as one batch.
func InsertEntities(ctx context.Context, conn driver.Conn, entities []Entity) error {
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO entities (project_id, source, level, entity_id, name, parent_id, version)")
	if err != nil {
		return fmt.Errorf("facts: insert entities: %w", err)
	}
	defer batch.Close()
	for _, e := range entities {
		if err := batch.Append(e.ProjectID, e.Source, e.Level, e.ID, e.Name, e.ParentID, e.Version); err != nil {
			return fmt.Errorf("facts: insert entities: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert entities: %w", err)
	}
	return nil
}
