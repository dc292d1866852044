package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/adsync"
	"mtk/engine/enginetest"
)

// utmAd is an ad as a tracked link names it: utm_campaign, utm_medium and utm_content as
// "<name>|<id>" (platform/utm), so that the live events and orders attribute to the generated
// campaigns, ad sets and ads that the dashboards list.
type utmAd struct {
	campaign, adset, ad string
}

// saveAdObjects stores the generated campaigns, ad sets and named ads of every network
// connection as sync stores what it reads from a network (adsync's ad_objects in PostgreSQL,
// newest name of each): attribution reads them there.
func saveAdObjects(ctx context.Context, pg *pgxpool.Pool, ds *enginetest.Dataset, t *dashTenants) error {
	conns := map[[2]string]string{} // project id, source → connection id
	for _, p := range t.projects {
		for _, c := range p.networks {
			conns[[2]string{p.project.ID, c.Kind}] = c.ID
		}
	}
	type objKey struct{ conn, id string }
	newest := map[objKey]adsync.Object{}
	version := map[objKey]uint64{}
	var order []objKey
	for _, e := range ds.Entities {
		if e.Level == "account" {
			continue
		}
		k := objKey{conns[[2]string{e.ProjectID, e.Source}], e.ID}
		if k.conn == "" {
			return fmt.Errorf("entity %s of project %s: no %s connection", e.ID, e.ProjectID, e.Source)
		}
		if _, seen := newest[k]; !seen {
			order = append(order, k)
		} else if e.Version < version[k] {
			continue
		}
		version[k] = e.Version
		newest[k] = adsync.Object{Level: e.Level, ID: e.ID, ParentID: e.ParentID, Name: e.Name, Status: "ACTIVE"}
	}
	byConn := map[string][]adsync.Object{}
	for _, k := range order {
		o := newest[k]
		// Campaign ids: a campaign is its own; an ad set's is its parent; an ad's its parent's parent.
		switch o.Level {
		case "campaign":
			o.CampaignID = o.ID
		case "adset":
			o.CampaignID = o.ParentID
		case "ad":
			o.CampaignID = newest[objKey{k.conn, o.ParentID}].ParentID
		}
		byConn[k.conn] = append(byConn[k.conn], o)
	}
	store := adsync.NewStore(pg)
	for conn, objs := range byConn {
		if err := store.SaveObjects(ctx, conn, objs, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// loadAds reads each project's ads with their ad set and campaign from ad_objects, for the UTM
// of its events and orders. Only the generated connections' ads are taken: the synced
// connection's appear and change with its syncs.
func loadAds(ctx context.Context, pg *pgxpool.Pool, t *dashTenants) error {
	for _, p := range t.projects {
		var ids []string
		for _, c := range p.networks {
			ids = append(ids, c.ID)
		}
		rows, err := pg.Query(ctx, `SELECT c.name || '|' || c.id, s.name || '|' || s.id, o.name || '|' || o.id
			FROM ad_objects o
			JOIN ad_objects s ON s.connection_id = o.connection_id AND s.id = o.parent_id
			JOIN ad_objects c ON c.connection_id = o.connection_id AND c.id = o.campaign_id
			WHERE o.level = 'ad' AND o.connection_id = ANY($1) ORDER BY o.connection_id, o.id`, ids)
		if err != nil {
			return err
		}
		p.ads, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (utmAd, error) {
			var a utmAd
			err := r.Scan(&a.campaign, &a.adset, &a.ad)
			return a, err
		})
		if err != nil {
			return err
		}
		if len(p.ads) == 0 {
			return fmt.Errorf("project %s has no ads in ad_objects (-fresh writes them again)", p.project.ID)
		}
	}
	return nil
}
