package outbox

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
	"mtk/internal/clock"
	"mtk/internal/pglock"
)

// CreditedJourney is an order's journey as credited in a project's zone.
type CreditedJourney struct {
	Zone    string
	Journey facts.OrderJourney
}

// CreditChange is one order credited again: Old's credits are taken back and New's given (nil:
// none), in credit_outbox (schema/postgres/0020_credits.sql).
type CreditChange struct {
	ProjectID string
	Old, New  *CreditedJourney
}

// QueueCredits queues cs and the growth of the outbox's size, in the caller's transaction.
func QueueCredits(w *pgx.Batch, cs []CreditChange, now time.Time) error {
	if len(cs) == 0 {
		return nil
	}
	for _, c := range cs {
		var at time.Time
		var zones [2]string
		var journeys [2][]byte
		for i, j := range []*CreditedJourney{c.Old, c.New} {
			if j == nil {
				continue
			}
			raw, err := json.Marshal(j.Journey)
			if err != nil {
				return fmt.Errorf("outbox: credit journey: %w", err)
			}
			at, zones[i], journeys[i] = j.Journey.Time, j.Zone, raw
		}
		w.Queue(`INSERT INTO credit_outbox (project_id, ts, old_zone, old_journey, new_zone, new_journey, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`, c.ProjectID, at, zones[0], journeys[0], zones[1], journeys[1], now)
	}
	queueResize(w, "credit_outbox", len(cs))
	return nil
}

// creditDrainBatch is how many credit_outbox rows one batch takes: each expands to a hundred or
// so credit rows (every model, both dates, each window step, old and new), so a fact-sized batch
// would hold millions of rows in memory at once.
const creditDrainBatch = 1000

// NewCreditDrainer returns the Drainer of the credit outbox: it writes each row's credits into
// credits_raw (its old journey's negated, its new one's) and deletes it.
func NewCreditDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *Drainer {
	return newDrainer(pool, ch, clk, log, drainTable{
		name: "credit_outbox", targets: []string{"credits_raw"}, lock: pglock.CreditDrainer, load: loadCredits,
		batch: creditDrainBatch,
	})
}

// pendingCredit is one credit_outbox row as the credit rows it lands.
type pendingCredit struct {
	id      int64
	project string
	ts      time.Time // the order's time
	batches []facts.CreditBatch
}

type creditRows []pendingCredit

func loadCredits(ctx context.Context, conn *pgxpool.Conn, limit int, part partition) (drainRows, error) {
	rows, err := conn.Query(ctx, `SELECT id, project_id, ts, old_zone, old_journey, new_zone, new_journey FROM credit_outbox
		WHERE `+partitionWhere+` ORDER BY id LIMIT $1`, limit, part.count, part.index)
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
				return p, fmt.Errorf("outbox: credit_outbox row %d: %w", p.id, err)
			}
			loc, err := time.LoadLocation(zones[i])
			if err != nil {
				return p, fmt.Errorf("outbox: time zone %q: %w", zones[i], err)
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

// keys span each row's credits: from its earliest touch to its order (the old journey's order
// may be later than the new one's).
func (rs creditRows) keys() []rowKey {
	keys := make([]rowKey, len(rs))
	for i, p := range rs {
		k := rowKey{id: p.id, project: p.project, ts: p.ts}
		for _, b := range p.batches {
			for _, c := range b.Credits {
				if k.from.IsZero() || c.Time.Before(k.from) {
					k.from = c.Time
				}
				if c.Time.After(k.ts) {
					k.ts = c.Time
				}
			}
		}
		keys[i] = k
	}
	return keys
}

// changes are the local days the credits land on, on both dates, in their zones.
func (rs creditRows) changes() ([]facts.Change, error) {
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

// insert writes the credits of the rows credits_raw does not hold yet, in one INSERT.
func (rs creditRows) insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
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
