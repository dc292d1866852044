package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/engine"
	"mtk/internal/clock"
)

// drainLock is the advisory lock that lets one Drainer run at a time.
const drainLock = 7_346_101

// DrainBatch is how many fact rows one ClickHouse insert takes.
const DrainBatch = 5000

// Drainer moves fact_outbox rows to facts_raw (see the package comment).
type Drainer struct {
	pool  *pgxpool.Pool
	ch    driver.Conn
	clock clock.Clock
	log   *slog.Logger
	// crash, in tests, is called between the steps of a batch ("insert": before the ClickHouse
	// insert, "mark": between it and the mark); an error stops the batch there, as a crash would.
	crash func(step string) error
}

// NewDrainer returns a Drainer.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *Drainer {
	return &Drainer{pool: pool, ch: ch, clock: clk, log: log, crash: func(string) error { return nil }}
}

// RunOnce drains every pending row and returns how many it applied. It returns at once when
// another Drainer holds the lock.
func (d *Drainer) RunOnce(ctx context.Context) (int, error) {
	conn, err := d.pool.Acquire(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Release()
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", drainLock).Scan(&got); err != nil || !got {
		return 0, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", drainLock) //nolint:errcheck
	total := 0
	for {
		n, err := d.batch(ctx, conn)
		total += n
		if err != nil || n < DrainBatch {
			return total, err
		}
	}
}

type pendingFact struct {
	id        int64
	timezone  string
	attempted bool
	fact      engine.Fact
}

// batch applies the oldest pending rows, at most DrainBatch.
func (d *Drainer) batch(ctx context.Context, conn *pgxpool.Conn) (int, error) {
	rows, err := conn.Query(ctx, `SELECT id, timezone, attempted_at IS NOT NULL, project_id, ts, source, connection_id,
		account_id, campaign_id, adset_id, ad_id, currency, page_views, leads, initiate_checkout, tx_revenue, tx_count, tx_count_total, tx_count_pending,
		tx_count_refunded, tx_product_costs FROM fact_outbox WHERE applied_at IS NULL ORDER BY id LIMIT $1`, DrainBatch)
	if err != nil {
		return 0, err
	}
	pending, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingFact, error) {
		var p pendingFact
		f := &p.fact
		err := r.Scan(&p.id, &p.timezone, &p.attempted, &f.ProjectID, &f.Time, &f.Source, &f.ConnectionID,
			&f.AccountID, &f.CampaignID, &f.AdsetID, &f.AdID, &f.Currency, &f.PageViews, &f.Leads, &f.InitiateCheckout, &f.TxRevenue, &f.TxCount, &f.TxCountTotal,
			&f.TxCountPending, &f.TxCountRefunded, &f.TxProductCosts)
		f.OutboxID = uint64(p.id)
		return p, err
	})
	if err != nil || len(pending) == 0 {
		return 0, err
	}
	ids := make([]int64, len(pending))
	for i, p := range pending {
		ids[i] = p.id
	}
	if _, err := conn.Exec(ctx, "UPDATE fact_outbox SET attempted_at = $2 WHERE id = ANY($1) AND attempted_at IS NULL",
		ids, d.clock.Now()); err != nil {
		return 0, err
	}
	present, err := d.alreadyInserted(ctx, pending)
	if err != nil {
		return 0, err
	}
	if err := d.crash("insert"); err != nil {
		return 0, err
	}
	if err := d.insert(ctx, pending, present); err != nil {
		return 0, err
	}
	if err := d.crash("mark"); err != nil {
		return 0, err
	}
	if _, err := conn.Exec(ctx, "UPDATE fact_outbox SET applied_at = $2 WHERE id = ANY($1)", ids, d.clock.Now()); err != nil {
		return 0, err
	}
	if len(present) > 0 {
		d.log.Info("outbox: facts found already inserted by an interrupted run", "rows", len(present))
	}
	return len(pending), nil
}

// alreadyInserted returns which of the rows that an earlier run attempted facts_raw holds.
func (d *Drainer) alreadyInserted(ctx context.Context, pending []pendingFact) (map[uint64]bool, error) {
	var suspects []uint64
	projects := map[string]bool{}
	var from, to time.Time
	for _, p := range pending {
		if !p.attempted {
			continue
		}
		suspects = append(suspects, p.fact.OutboxID)
		projects[p.fact.ProjectID] = true
		if t := p.fact.Time.UTC().Truncate(time.Minute); from.IsZero() || t.Before(from) {
			from = t
		}
		if t := p.fact.Time.UTC(); t.After(to) {
			to = t
		}
	}
	present := map[uint64]bool{}
	if len(suspects) == 0 {
		return present, nil
	}
	var projectIDs []string
	for p := range projects {
		projectIDs = append(projectIDs, p)
	}
	rows, err := d.ch.Query(ctx, `SELECT DISTINCT outbox_id FROM facts_raw
		WHERE has(?, project_id) AND ts >= ? AND ts <= ? AND has(?, outbox_id)`, projectIDs, from, to, suspects)
	if err != nil {
		return nil, fmt.Errorf("outbox: look up facts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id uint64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		present[id] = true
	}
	return present, rows.Err()
}

// insert writes the rows facts_raw does not hold yet, per project time zone.
func (d *Drainer) insert(ctx context.Context, pending []pendingFact, present map[uint64]bool) error {
	byZone := map[string][]engine.Fact{}
	var zones []string
	for _, p := range pending {
		if present[p.fact.OutboxID] {
			continue
		}
		if _, ok := byZone[p.timezone]; !ok {
			zones = append(zones, p.timezone)
		}
		byZone[p.timezone] = append(byZone[p.timezone], p.fact)
	}
	for _, zone := range zones {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return fmt.Errorf("outbox: time zone %q: %w", zone, err)
		}
		if err := engine.InsertFacts(ctx, d.ch, loc, byZone[zone]); err != nil {
			return err
		}
	}
	return nil
}

// Purge deletes applied rows older than age, and returns how many.
func (d *Drainer) Purge(ctx context.Context, age time.Duration) (int64, error) {
	tag, err := d.pool.Exec(ctx, "DELETE FROM fact_outbox WHERE applied_at < $1", d.clock.Now().Add(-age))
	return tag.RowsAffected(), err
}
