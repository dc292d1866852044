package outbox

import (
	"context"
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

// NewDrainer returns the Drainer of the fact outbox: it moves fact_outbox rows into facts_raw
// and deletes them.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *Drainer {
	return newDrainer(pool, ch, clk, log, drainTable{
		name: "fact_outbox", target: "facts_raw", lock: pglock.FactDrainer, load: loadFacts,
	})
}

type pendingFact struct {
	id       int64
	timezone string
	fact     facts.Fact
}

type factRows []pendingFact

func loadFacts(ctx context.Context, conn *pgxpool.Conn, limit int, part partition) (drainRows, error) {
	rows, err := conn.Query(ctx, `SELECT id, timezone, project_id, ts, source, connection_id, account_id,
		campaign_id, adset_id, ad_id, currency, `+facts.Columns(facts.Business, "")+` FROM fact_outbox WHERE `+partitionWhere+` ORDER BY id LIMIT $1`,
		limit, part.count, part.index)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingFact, error) {
		var p pendingFact
		f := &p.fact
		dest := []any{&p.id, &p.timezone, &f.ProjectID, &f.Time, &f.Source, &f.ConnectionID, &f.AccountID,
			&f.CampaignID, &f.AdsetID, &f.AdID, &f.Currency}
		err := r.Scan(append(dest, f.Values.Dest(facts.Business)...)...)
		f.OutboxID = uint64(p.id)
		return p, err
	})
	return factRows(got), err
}

func (rs factRows) keys() []rowKey {
	keys := make([]rowKey, len(rs))
	for i, p := range rs {
		keys[i] = rowKey{id: p.id, project: p.fact.ProjectID, ts: p.fact.Time}
	}
	return keys
}

// changes are the local days of the rows' projects, in each project's zone.
func (rs factRows) changes() ([]facts.Change, error) {
	byZone := map[string][]facts.Fact{}
	for _, p := range rs {
		byZone[p.timezone] = append(byZone[p.timezone], p.fact)
	}
	var out []facts.Change
	for zone, fs := range byZone {
		loc, err := time.LoadLocation(zone)
		if err != nil {
			return nil, fmt.Errorf("outbox: time zone %q: %w", zone, err)
		}
		out = append(out, facts.FactChanges(loc, fs)...)
	}
	return out, nil
}

// insert writes the rows facts_raw does not hold yet, per project time zone.
func (rs factRows) insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
	byZone := map[string][]facts.Fact{}
	var zones []string
	for _, p := range rs {
		if skip[p.fact.OutboxID] {
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
		if err := facts.InsertFacts(ctx, ch, loc, byZone[zone]); err != nil {
			return err
		}
	}
	return nil
}
