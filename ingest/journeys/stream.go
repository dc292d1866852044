package journeys

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/credits"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/pglock"
)

// Stream is the journey outbox as a Drainer drains it: journey_outbox rows into
// journeys_by_lead, their leads marked for the credit worker as they leave (Settled).
var Stream = outbox.Stream{Table: journeyOutbox, Targets: []string{"journeys_by_lead"}, Lock: pglock.JourneyDrainer,
	Load: loadJourneys}

// NewDrainer returns the Drainer of the journey outbox: it moves journey_outbox rows into the
// journeys_by_lead table, deletes them and marks their leads for the credit worker.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *outbox.Drainer {
	return outbox.NewDrainer(pool, ch, clk, log, Stream)
}

// pendingJourney is one journey_outbox row.
type pendingJourney struct {
	id  int64
	row JourneyRow
}

type journeyRows []pendingJourney

func loadJourneys(ctx context.Context, conn *pgxpool.Conn, limit int, part outbox.Partition) (outbox.Rows, error) {
	rows, err := part.Select(ctx, conn, journeyOutbox, `id, `+journeyColumns, limit)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingJourney, error) {
		var p pendingJourney
		err := r.Scan(append([]any{&p.id}, p.row.dest()...)...)
		return p, err
	})
	return journeyRows(got), err
}

func (rs journeyRows) Keys() []outbox.RowKey {
	keys := make([]outbox.RowKey, len(rs))
	for i, p := range rs {
		keys[i] = outbox.RowKey{ID: p.id, Project: p.row.ProjectID, TS: p.row.Time}
	}
	return keys
}

// Changes are the local days of the rows: model answers read them (their cache keys widen the
// days they read by the window, engine.Prepared.Days).
func (rs journeyRows) Changes() ([]facts.Change, error) {
	var out []facts.Change
	seen := map[facts.Change]bool{}
	for _, p := range rs {
		loc, err := time.LoadLocation(p.row.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("journeys: time zone %q: %w", p.row.TimeZone, err)
		}
		c := facts.FactsOn(p.row.ProjectID, facts.LocalDay(p.row.Time, loc))
		if p.row.Kind == JourneyMerge { // it moves credits on any day of the lead's
			c = facts.EntitiesOf(p.row.ProjectID)
		}
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out, nil
}

// Insert writes the rows journeys_by_lead does not hold yet, in one INSERT.
func (rs journeyRows) Insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
	batch, err := ch.PrepareBatch(ctx, "INSERT INTO journeys_by_lead ("+strings.Join(rowColumns, ", ")+", outbox_id)")
	if err != nil {
		return fmt.Errorf("journeys: insert journeys: %w", err)
	}
	defer batch.Close()
	for _, p := range rs {
		if skip[uint64(p.id)] {
			continue
		}
		if err := batch.Append(append(p.row.values(), uint64(p.id))...); err != nil {
			return fmt.Errorf("journeys: insert journeys: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("journeys: insert journeys: %w", err)
	}
	return nil
}

// Settled marks, in the settle transaction, the leads of the rows (a merge row's lead and the
// lead it was merged into) and the orders without a lead: once the rows are in journeys_by_lead,
// the credit worker must credit their people again. A mark already set gets a new seq, so that a
// worker computing from the rows before these keeps it.
func (rs journeyRows) Settled(b *pgx.Batch) {
	seen := map[credits.Mark]bool{}
	var marks []credits.Mark
	add := func(m credits.Mark) {
		if !seen[m] {
			seen[m] = true
			marks = append(marks, m)
		}
	}
	for _, p := range rs {
		r := &p.row
		switch {
		case r.LeadID != "":
			add(credits.LeadMark(r.ProjectID, r.LeadID))
			if r.MergedInto != "" {
				add(credits.LeadMark(r.ProjectID, r.MergedInto))
			}
		case r.Kind == JourneyOrder:
			add(credits.LeadlessMark(r.ProjectID, r.OrderID, r.Time))
		}
	}
	credits.QueueMarks(b, marks)
}
