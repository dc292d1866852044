// Package attribution links an event's or order's UTM to a project's synced ad entities. It reads
// the names and parents of campaigns, ad sets and ads, and the connections that own them, from
// PostgreSQL (adsync's ad_objects), so that ingest works while ClickHouse is down, and keeps each
// project's index in memory for TTL: an entity synced meanwhile attributes at most TTL later.
package attribution

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/internal/clock"
	"mtk/internal/ttlcache"
	"mtk/platform"
	"mtk/platform/utm"
)

// DefaultTTL is how long a project's entities are kept before they are read again.
const DefaultTTL = time.Minute

// Resolver attributes UTM parameters to entities, with a per-project cache.
type Resolver struct {
	pool  *pgxpool.Pool
	clock clock.Clock

	projects *ttlcache.Cache[string, *utm.Index]
}

// maxProjects bounds the projects whose entities are kept.
const maxProjects = 10_000

// New returns a Resolver; ttl <= 0 means DefaultTTL.
func New(pool *pgxpool.Pool, clk clock.Clock, ttl time.Duration) *Resolver {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Resolver{pool: pool, clock: clk, projects: ttlcache.New[string, *utm.Index](ttl, maxProjects)}
}

// Resolve attributes p (from utm.Extract) within a project to the ad entity where the event or
// order counts; false when nothing is attributed.
func (r *Resolver) Resolve(ctx context.Context, projectID string, p utm.Params) (facts.AdEntity, bool, error) {
	if utm.Parse(p) == (utm.Ref{}) {
		return facts.AdEntity{}, false, nil
	}
	ix, err := r.Entities(ctx, projectID)
	if err != nil {
		return facts.AdEntity{}, false, err
	}
	a, ok := ix.Resolve(p)
	return a, ok, nil
}

// Entities are a project's entities as Resolve reads them, for a writer that resolves UTM
// inside a transaction: its connection then needs no second one of the pool (a pool whose
// connections all wait on that writer's locks would never give it one).
type Entities struct{ ix *utm.Index }

// Entities returns a project's entities, read at most once per TTL.
func (r *Resolver) Entities(ctx context.Context, projectID string) (Entities, error) {
	ix, err := r.index(ctx, projectID)
	return Entities{ix}, err
}

// Resolve is Resolver.Resolve over these entities.
func (e Entities) Resolve(p utm.Params) (facts.AdEntity, bool) {
	ref := utm.Parse(p)
	if ref == (utm.Ref{}) {
		return facts.AdEntity{}, false
	}
	a, ok := utm.Resolve(ref, e.ix)
	if !ok {
		return facts.AdEntity{}, false
	}
	return facts.AdEntity{Source: a.Campaign.Source, ConnectionID: a.Campaign.ConnectionID, AccountID: a.Campaign.AccountID,
		CampaignID: a.Campaign.ID, AdsetID: a.Adset.ID, AdID: a.Ad.ID}, true
}

// Forget drops a project's cached entities (after a sync, or in tests).
func (r *Resolver) Forget(projectID string) {
	r.projects.Forget(func(id string, _ *utm.Index) bool { return id == projectID })
}

// index is a project's entities, read at most once per ttl (one read at a time per project).
func (r *Resolver) index(ctx context.Context, projectID string) (*utm.Index, error) {
	return r.projects.Load(projectID, r.clock.Now(), func() (*utm.Index, error) { return r.load(ctx, projectID) })
}

// load reads a project's synced ad objects (adsync keeps them in PostgreSQL's ad_objects), each
// named by the kind of the connection that owns it (platform's): acknowledging an event or order
// then needs PostgreSQL only.
func (r *Resolver) load(ctx context.Context, projectID string) (*utm.Index, error) {
	kinds, err := platform.ConnectionKinds(ctx, r.pool, projectID)
	if err != nil {
		return nil, err
	}
	rows, err := r.pool.Query(ctx, `SELECT o.connection_id, o.level, o.id, o.name, o.parent_id,
		CASE WHEN o.level = 'campaign' THEN o.parent_id ELSE a.parent_id END
		FROM ad_objects o
		LEFT JOIN ad_objects a ON a.connection_id = o.connection_id AND a.id = o.campaign_id AND a.level = 'campaign'
		WHERE o.connection_id = ANY($1) AND o.level IN ('campaign', 'adset', 'ad')`, slices.Collect(maps.Keys(kinds)))
	if err != nil {
		return nil, err
	}
	var entities []utm.Entity
	var e utm.Entity
	var level string
	var account *string
	_, err = pgx.ForEachRow(rows, []any{&e.ConnectionID, &level, &e.ID, &e.Name, &e.ParentID, &account}, func() error {
		e.Source, e.Level, e.AccountID = kinds[e.ConnectionID], utm.Level(level), ""
		if account != nil {
			e.AccountID = *account
		}
		entities = append(entities, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return utm.NewIndex(entities), nil
}
