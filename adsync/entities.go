package adsync

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/platform"
)

// writeObjects stores the account and its objects: every changed object in PostgreSQL (for the
// objects route and the UI), and a new version in ClickHouse's entities dimension only when the
// name or the parent changed (and then the project's entities version moves, in tx). It returns
// the entity rows written to ClickHouse.
func (s *Syncer) writeObjects(ctx context.Context, tx pgx.Tx, c platform.Connection, projectID string, acct Account, objs []Object, now time.Time) (int64, error) {
	stored, err := s.Store.Objects(ctx, c.ID)
	if err != nil {
		return 0, err
	}
	all := append([]Object{{Level: LevelAccount, ID: acct.ID, Name: acct.Name, Status: StatusActive}}, objs...)
	var changed []Object
	var versions []facts.Entity
	for _, o := range all {
		old, seen := stored[o.ID]
		if seen && old == o {
			continue
		}
		changed = append(changed, o)
		if !seen || old.Name != o.Name || old.ParentID != o.ParentID || old.Level != o.Level {
			parent := o.ParentID
			if o.Level == LevelCampaign {
				parent = acct.ID
			}
			versions = append(versions, facts.Entity{ProjectID: projectID, Source: c.Kind, Level: o.Level, ID: o.ID,
				Name: o.Name, ParentID: parent, Version: uint64(now.UnixNano())})
		}
	}
	if err := saveObjects(ctx, tx, c.ID, changed, now); err != nil {
		return 0, err
	}
	if len(versions) > 0 {
		if err := facts.InsertEntities(ctx, s.ClickHouse, versions); err != nil {
			return 0, err
		}
		if err := facts.Moved(ctx, tx, []facts.Change{facts.EntitiesOf(projectID)}); err != nil {
			return 0, err
		}
	}
	return int64(len(versions)), nil
}
