// Package attribution links an event's or order's UTM to a project's synced ad entities. It reads
// the names and parents of campaigns, ad sets and ads, and the connections that own them, from
// PostgreSQL (adsync's ad_objects), so that ingest works while ClickHouse is down, and keeps each
// project's index in memory for TTL: an entity synced meanwhile attributes at most TTL later.
package attribution

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/utm"
	"mtk/internal/clock"
)

// DefaultTTL is how long a project's entities are kept before they are read again.
const DefaultTTL = time.Minute

// Resolver attributes UTM parameters to entities, with a per-project cache.
type Resolver struct {
	pool  *pgxpool.Pool
	clock clock.Clock
	ttl   time.Duration

	mu       sync.Mutex
	projects map[string]*cached
}

type cached struct {
	mu     sync.Mutex // one load at a time per project
	ix     *utm.Index
	loaded time.Time
}

// New returns a Resolver; ttl <= 0 means DefaultTTL.
func New(pool *pgxpool.Pool, clk clock.Clock, ttl time.Duration) *Resolver {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Resolver{pool: pool, clock: clk, ttl: ttl, projects: map[string]*cached{}}
}

// Fact is the entity part of a fact: where an attributed event or order counts.
type Fact struct {
	Source, ConnectionID, AccountID, CampaignID, AdsetID, AdID string
}

// Resolve attributes p (from utm.Extract) within a project; false when nothing is attributed.
func (r *Resolver) Resolve(ctx context.Context, projectID string, p utm.Params) (Fact, bool, error) {
	ref := utm.Parse(p)
	if ref == (utm.Ref{}) {
		return Fact{}, false, nil
	}
	ix, err := r.index(ctx, projectID)
	if err != nil {
		return Fact{}, false, err
	}
	a, ok := utm.Resolve(ref, ix)
	if !ok {
		return Fact{}, false, nil
	}
	return Fact{Source: a.Campaign.Source, ConnectionID: a.Campaign.ConnectionID, AccountID: a.Campaign.AccountID,
		CampaignID: a.Campaign.ID, AdsetID: a.Adset.ID, AdID: a.Ad.ID}, true, nil
}

// Forget drops a project's cached entities (after a sync, or in tests).
func (r *Resolver) Forget(projectID string) {
	r.mu.Lock()
	delete(r.projects, projectID)
	r.mu.Unlock()
}

func (r *Resolver) index(ctx context.Context, projectID string) (*utm.Index, error) {
	r.mu.Lock()
	c, ok := r.projects[projectID]
	if !ok {
		c = &cached{}
		r.projects[projectID] = c
	}
	r.mu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := r.clock.Now(); c.ix == nil || now.Sub(c.loaded) >= r.ttl {
		ix, err := r.load(ctx, projectID)
		if err != nil {
			return nil, err
		}
		c.ix, c.loaded = ix, now
	}
	return c.ix, nil
}

// load reads a project's synced ad objects (adsync keeps them in PostgreSQL's ad_objects, with
// the connection that owns them): acknowledging an event or order then needs PostgreSQL only.
func (r *Resolver) load(ctx context.Context, projectID string) (*utm.Index, error) {
	rows, err := r.pool.Query(ctx, `SELECT c.kind, o.connection_id, o.level, o.id, o.name, o.parent_id,
		CASE WHEN o.level = 'campaign' THEN o.parent_id ELSE a.parent_id END
		FROM ad_objects o JOIN connections c ON c.id = o.connection_id
		LEFT JOIN ad_objects a ON a.connection_id = o.connection_id AND a.id = o.campaign_id AND a.level = 'campaign'
		WHERE c.project_id = $1 AND o.level IN ('campaign', 'adset', 'ad')`, projectID)
	if err != nil {
		return nil, err
	}
	var entities []utm.Entity
	var e utm.Entity
	var level string
	var account *string
	_, err = pgx.ForEachRow(rows, []any{&e.Source, &e.ConnectionID, &level, &e.ID, &e.Name, &e.ParentID, &account}, func() error {
		e.Level, e.AccountID = utm.Level(level), ""
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
