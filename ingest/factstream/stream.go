package factstream

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
	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/pglock"
)

// Stream is the fact outbox as a Drainer drains it: fact_outbox rows into facts_raw (rows of
// empty kind) and business_raw (the others).
var Stream = outbox.Stream{Table: factOutbox, Targets: []string{"facts_raw", "business_raw"}, Lock: pglock.FactDrainer,
	Load: loadFacts}

// NewDrainer returns the Drainer of the fact outbox: it moves fact_outbox rows into facts_raw
// and business_raw and deletes them.
func NewDrainer(pool *pgxpool.Pool, ch driver.Conn, clk clock.Clock, log *slog.Logger) *outbox.Drainer {
	return outbox.NewDrainer(pool, ch, clk, log, Stream)
}

// pendingFact is one fact outbox row: a facts_raw row (fact) or, when biz.Kind is set, a
// business_raw row (biz).
type pendingFact struct {
	id       int64
	timezone string
	fact     facts.Fact
	biz      facts.BizFact
}

func (p *pendingFact) isBiz() bool { return p.biz.Kind != "" }

type factRows []pendingFact

// outboxMeasures are the fact outbox's measure columns: the business family's, which hold the ad
// facts' business measures (facts.Business).
var outboxMeasures = facts.BusinessFamily.Measures

func loadFacts(ctx context.Context, conn *pgxpool.Conn, limit int, part outbox.Partition) (outbox.Rows, error) {
	rows, err := part.Select(ctx, conn, factOutbox, `id, timezone, project_id, ts, `+strings.Join(facts.BizKeyColumns, ", ")+
		`, `+facts.Columns(outboxMeasures, ""), limit)
	if err != nil {
		return nil, err
	}
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pendingFact, error) {
		var p pendingFact
		var t time.Time
		k := &p.biz.BizKeys
		var v facts.Values
		dest := append([]any{&p.id, &p.timezone, &p.biz.ProjectID, &t}, k.Dest()...)
		if err := r.Scan(append(dest, v.Dest(outboxMeasures)...)...); err != nil {
			return p, err
		}
		if p.isBiz() {
			p.biz.Time, p.biz.OutboxID, p.biz.Values = t, uint64(p.id), v
			return p, nil
		}
		p.fact = facts.Fact{ProjectID: p.biz.ProjectID, Time: t, AdEntity: k.AdEntity, Currency: k.Currency, Values: v,
			OutboxID: uint64(p.id)}
		p.biz = facts.BizFact{}
		return p, nil
	})
	return factRows(got), err
}

func (rs factRows) Keys() []outbox.RowKey {
	keys := make([]outbox.RowKey, len(rs))
	for i, p := range rs {
		keys[i] = outbox.RowKey{ID: p.id, Project: p.fact.ProjectID, TS: p.fact.Time}
		if p.isBiz() {
			keys[i].Project, keys[i].TS = p.biz.ProjectID, p.biz.Time
		}
	}
	return keys
}

// zoned are rows of one time zone, of each family.
type zoned struct {
	loc   *time.Location
	facts []facts.Fact
	biz   []facts.BizFact
}

// byZone groups the rows that skip does not list by time zone, in the order zones first appear.
func (rs factRows) byZone(skip map[uint64]bool) ([]*zoned, error) {
	var out []*zoned
	index := map[string]*zoned{}
	for _, p := range rs {
		if skip[uint64(p.id)] {
			continue
		}
		z := index[p.timezone]
		if z == nil {
			loc, err := time.LoadLocation(p.timezone)
			if err != nil {
				return nil, fmt.Errorf("factstream: time zone %q: %w", p.timezone, err)
			}
			z = &zoned{loc: loc}
			index[p.timezone] = z
			out = append(out, z)
		}
		if p.isBiz() {
			z.biz = append(z.biz, p.biz)
		} else {
			z.facts = append(z.facts, p.fact)
		}
	}
	return out, nil
}

// Changes are the local days of the rows' projects, in each project's zone.
func (rs factRows) Changes() ([]facts.Change, error) {
	zones, err := rs.byZone(nil)
	if err != nil {
		return nil, err
	}
	var out []facts.Change
	for _, z := range zones {
		out = append(out, facts.FactChanges(z.loc, z.facts)...)
		out = append(out, facts.BizChanges(z.loc, z.biz)...)
	}
	return out, nil
}

// Insert writes the rows facts_raw and business_raw do not hold yet, per project time zone.
func (rs factRows) Insert(ctx context.Context, ch driver.Conn, skip map[uint64]bool) error {
	zones, err := rs.byZone(skip)
	if err != nil {
		return err
	}
	for _, z := range zones {
		if len(z.facts) > 0 {
			if err := facts.InsertFacts(ctx, ch, z.loc, z.facts); err != nil {
				return err
			}
		}
		if len(z.biz) > 0 {
			if err := facts.InsertBizFacts(ctx, ch, z.loc, z.biz); err != nil {
				return err
			}
		}
	}
	return nil
}
