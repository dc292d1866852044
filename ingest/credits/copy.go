package credits

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/internal/pglock"
)

// journeyColumns are the columns journeys and journeys_by_lead share (the journeys family's).
var journeyColumns = strings.Join(facts.JourneysFamily.ColumnNames("journeys"), ", ")

// CopyJourneys copies, once per database, the rows of ClickHouse's journeys table (written by the
// journey drainer before journeys_by_lead existed; nothing reads it since) into journeys_by_lead,
// and records it in journeys_copied. Its transaction holds the journey drainer's lock
// exclusively, so that no journey drain runs meanwhile, and copies only the rows journeys_by_lead lacks (by outbox_id),
// so that a copy interrupted before its record is repeated without a row twice.
func CopyJourneys(ctx context.Context, pool *pgxpool.Pool, ch driver.Conn, now time.Time) error {
	var done bool
	if err := pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM journeys_copied)").Scan(&done); err != nil || done {
		return err
	}
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		// Waiting for the lock waits for the drains of the journey outbox's partitions in progress.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", pglock.JourneyDrainer); err != nil {
			return fmt.Errorf("credits: copy journeys: %w", err)
		}
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM journeys_copied)").Scan(&done); err != nil || done {
			return err
		}
		// GLOBAL: on a cluster both tables are Distributed, and ClickHouse refuses a plain IN over
		// one inside a query over the other (code 288); on one server it changes nothing.
		if err := ch.Exec(ctx, `INSERT INTO journeys_by_lead (`+journeyColumns+`) SELECT `+journeyColumns+` FROM journeys
			WHERE outbox_id GLOBAL NOT IN (SELECT outbox_id FROM journeys_by_lead)`); err != nil {
			return fmt.Errorf("credits: copy journeys: %w", err)
		}
		_, err := tx.Exec(ctx, "INSERT INTO journeys_copied (done_at) VALUES ($1)", now)
		return err
	})
}
