package credits

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/pglock"
)

// creditDrainBatch is how many credit_outbox rows one batch takes: each expands to a hundred or
// so credit rows (every model, both dates, each window step, old and new), so a fact-sized batch
// would hold millions of rows in memory at once.
const creditDrainBatch = 1000

// Stream is the credit outbox as a Drainer drains it: each credit_outbox row as the credits of
// its old journey negated and its new one's, into credits_raw and, through its views, its
// rollups (one INSERT, facts.InsertCredits). An interrupted attempt is looked up in credits_raw,
// which holds each row's outbox_id: the statement that stored its raw rows stored its rollups.
var Stream = outbox.Stream{Table: creditOutbox, Targets: []string{"credits_raw"}, Lock: pglock.CreditDrainer,
	Batch: creditDrainBatch, Load: loadCredits}

// NewDrainer returns the Drainer of the credit outbox: it writes each row's credits into
// credits_raw (its old journey's negated, its new one's) and deletes it.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *outbox.Drainer {
	return outbox.NewDrainer(pool, ch, clk, log, Stream)
}

// pendingCredit is one credit_outbox row as the credit rows it lands.
type pendingCredit struct {
	id      int64
	project string
	ts      time.Time // the order's time
	batches []facts.CreditBatch
}

type creditRows []pendingCredit

func loadCredits(ctx context.Context, conn *pgxpool.Conn, limit int, part outbox.Partition) (outbox.Rows, error) {
	rows, err := part.Select(ctx, conn, creditOutbox, "id, project_id, ts, old_zone, old_journey, new_zone, new_journey", limit)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingCredit, error) {
		var p pendingCredit
		var zones [2]string
		var journeys [2][]byte
		if err := r.Scan(&p.id, &p.project, &p.ts, &zones[0], &journeys[0], &zones[1], &journeys[1]); err != nil {
			return p, err
		}
		for i := range zones {
			if journeys[i] == nil {
				continue
			}
			var j facts.OrderJourney
			if err := json.Unmarshal(journeys[i], &j); err != nil {
				return p, fmt.Errorf("credits: credit_outbox row %d: %w", p.id, err)
			}
			loc, err := time.LoadLocation(zones[i])
			if err != nil {
				return p, fmt.Errorf("credits: time zone %q: %w", zones[i], err)
			}
			cs := facts.Credits(j)
			if i == 0 {
				cs = facts.NegateCredits(cs)
			}
			p.batches = append(p.batches, facts.CreditBatch{ProjectID: p.project, Zone: loc, OutboxID: uint64(p.id), Credits: cs})
		}
		return p, nil
	})
	return creditRows(got), err
}

// Keys span each row's credits: from its earliest touch to its order (the old journey's order
// may be later than the new one's).
func (rs creditRows) Keys() []outbox.RowKey {
	keys := make([]outbox.RowKey, len(rs))
	for i, p := range rs {
		k := outbox.RowKey{ID: p.id, Project: p.project, TS: p.ts}
		for _, b := range p.batches {
			for _, c := range b.Credits {
				if k.From.IsZero() || c.Time.Before(k.From) {
					k.From = c.Time
				}
				if c.Time.After(k.TS) {
					k.TS = c.Time
				}
			}
		}
		keys[i] = k
	}
	return keys
}

// Changes are the local days the credits land on, on both dates, in their zones.
func (rs creditRows) Changes() ([]facts.Change, error) {
	var out []facts.Change
	seen := map[facts.Change]bool{}
	for _, p := range rs {
		for _, b := range p.batches {
			for _, c := range b.Credits {
				_, _, day := facts.Times(c.Time, b.Zone)
				if ch := facts.FactsOn(b.ProjectID, day); !seen[ch] {
					seen[ch] = true
					out = append(out, ch)
				}
			}
		}
	}
	return out, nil
}

// Insert writes the credits of the rows credits_raw does not hold yet, in one INSERT.
func (rs creditRows) Insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
	var batches []facts.CreditBatch
	for _, p := range rs {
		if !skip[uint64(p.id)] {
			batches = append(batches, p.batches...)
		}
	}
	if len(batches) == 0 {
		return nil
	}
	return facts.InsertCredits(ctx, ch, batches)
}
