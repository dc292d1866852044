package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// Facts known only per hour or per day (an ad network's hourly or daily insights) are written
// straight into the rollups, skipping facts_raw: then the finer tables hold no data for those
// periods and the fallback answers from the table that has it, instead of showing a whole hour
// or day at its first minute. Every rollup still holds the sum of every fact of its period.

// InsertHourlyFacts writes facts known per hour into facts_hourly and facts_daily: each Time is
// placed in its local hour and day of zone loc, as FactTimes does.
func InsertHourlyFacts(ctx context.Context, conn driver.Conn, loc *time.Location, facts []Fact) error {
	if err := insertRollup(ctx, conn, "facts_hourly", "hour, day", facts, func(f Fact) []any {
		_, hour, day := FactTimes(f.Time, loc)
		return []any{hour, day}
	}); err != nil {
		return err
	}
	return InsertDailyFacts(ctx, conn, dated(facts, loc))
}

// dated turns facts' times into their local dates in loc, for InsertDailyFacts.
func dated(facts []Fact, loc *time.Location) []Fact {
	out := make([]Fact, len(facts))
	for i, f := range facts {
		y, m, d := f.Time.In(loc).Date()
		f.Time = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		out[i] = f
	}
	return out
}

// InsertDailyFacts writes facts known per day into facts_daily. Each Time is read as a calendar
// date: its year, month and day in its own location (the caller decides which zone's day it is).
func InsertDailyFacts(ctx context.Context, conn driver.Conn, facts []Fact) error {
	return insertRollup(ctx, conn, "facts_daily", "day", facts, func(f Fact) []any {
		y, m, d := f.Time.Date()
		return []any{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
	})
}

func insertRollup(ctx context.Context, conn driver.Conn, table, timeColumns string, facts []Fact, times func(Fact) []any) error {
	if len(facts) == 0 {
		return nil
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO "+table+" (project_id, "+timeColumns+", source, connection_id, "+
		"account_id, campaign_id, adset_id, ad_id, currency, "+measureColumns+")")
	if err != nil {
		return fmt.Errorf("engine: insert %s: %w", table, err)
	}
	defer batch.Close()
	for _, f := range facts {
		row := append(append(append([]any{f.ProjectID}, times(f)...), f.dims()...), f.measures()...)
		if err := batch.Append(row...); err != nil {
			return fmt.Errorf("engine: insert %s: %w", table, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("engine: insert %s: %w", table, err)
	}
	return nil
}
