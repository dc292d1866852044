package facts

import (
	"context"
	"fmt"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/shopspring/decimal"
)

// Rate is one day's exchange rate: one unit of Base buys Rate units of Quote on Day (a civil date).
type Rate struct {
	Day         time.Time
	Base, Quote string
	Rate        decimal.Decimal
}

// InsertRates writes rates into fx_rates at version (of a day's rates, the highest version
// stands, so a correction is written with a higher one). A writer serving answers then moves the
// rates' data versions (RateChanges) in PostgreSQL.
func InsertRates(ctx context.Context, conn driver.Conn, rates []Rate, version uint64) error {
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO fx_rates (day, base, quote, rate, version)")
	if err != nil {
		return fmt.Errorf("facts: insert rates: %w", err)
	}
	defer batch.Close() //nolint:errcheck // after Send it is a no-op
	for _, r := range rates {
		if err := batch.Append(r.Day, r.Base, r.Quote, r.Rate, version); err != nil {
			return fmt.Errorf("facts: insert rates: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert rates: %w", err)
	}
	return nil
}

// RateChanges are the changes that writing rates makes: one per day.
func RateChanges(rates []Rate) []Change {
	var out []Change
	seen := map[time.Time]bool{}
	for _, r := range rates {
		if !seen[r.Day] {
			seen[r.Day] = true
			out = append(out, RatesOn(r.Day))
		}
	}
	return out
}
