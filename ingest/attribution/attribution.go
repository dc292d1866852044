// Package attribution links an event's or order's UTM to a project's synced ad entities. It reads
// the names and parents of campaigns, ad sets and ads from ClickHouse's entities table (latest
// version of each), the connections that own their accounts from PostgreSQL, and keeps each
// project's index in memory for TTL: an entity synced meanwhile attributes at most TTL later.
package attribution

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/ingest/utm"
	"mtk/internal/clock"
	"mtk/platform"
)

// DefaultTTL is how long a project's entities are kept before they are read again.
const DefaultTTL = time.Minute

// Connections lists a project's connections (platform.Store does).
type Connections interface {
	ListConnections(ctx context.Context, projectID string) ([]platform.Connection, error)
}

// Resolver attributes UTM parameters to entities, with a per-project cache.
type Resolver struct {
	ch    driver.Conn
	conns Connections
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
func New(ch driver.Conn, conns Connections, clk clock.Clock, ttl time.Duration) *Resolver {
	if ttl <= 0 {
		ttl = DefaultTTL
	}
	return &Resolver{ch: ch, conns: conns, clock: clk, ttl: ttl, projects: map[string]*cached{}}
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

type entityRow struct {
	level, source, id, name, parent string
}

// load reads a project's entities and links each account to its connection.
func (r *Resolver) load(ctx context.Context, projectID string) (*utm.Index, error) {
	rows, err := r.ch.Query(ctx, `SELECT level, source, entity_id, argMax(name, version), argMax(parent_id, version)
		FROM entities WHERE project_id = ? GROUP BY level, source, entity_id`, projectID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var all []entityRow
	byID := map[string]entityRow{}
	for rows.Next() {
		var e entityRow
		if err := rows.Scan(&e.level, &e.source, &e.id, &e.name, &e.parent); err != nil {
			return nil, err
		}
		all = append(all, e)
		byID[e.level+"|"+e.source+"|"+e.id] = e
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	conns, err := r.conns.ListConnections(ctx, projectID)
	if err != nil {
		return nil, err
	}
	connOf := map[string]string{}
	for _, c := range conns {
		if c.SourceID != nil {
			connOf[c.Kind+"|"+accountKey(*c.SourceID)] = c.ID
		}
	}
	parentLevel := map[string]string{string(utm.LevelAd): string(utm.LevelAdset), string(utm.LevelAdset): string(utm.LevelCampaign)}
	var entities []utm.Entity
	for _, e := range all {
		if _, ok := parentLevel[e.level]; !ok && e.level != string(utm.LevelCampaign) {
			continue
		}
		// Walk up to the campaign, whose parent is the account.
		cur, level := e, e.level
		for level != string(utm.LevelCampaign) {
			level = parentLevel[level]
			cur = byID[level+"|"+e.source+"|"+cur.parent]
		}
		account := cur.parent
		entities = append(entities, utm.Entity{Level: utm.Level(e.level), ID: e.id, Name: e.name, ParentID: e.parent,
			Source: e.source, AccountID: account, ConnectionID: connOf[e.source+"|"+accountKey(account)]})
	}
	return utm.NewIndex(entities), nil
}

// accountKey compares ad account ids with and without the first network's act_ prefix.
func accountKey(id string) string { return strings.TrimPrefix(id, "act_") }
