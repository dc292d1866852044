package platform

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
)

// ProjectZone is a project's id and time zone: what the facts' day boundaries need of it.
type ProjectZone struct{ ID, Timezone string }

// ProjectTimezone is project id's time zone, read on q; "" when there is no such project (it was
// deleted), which the caller takes as nothing left to do for it.
func ProjectTimezone(ctx context.Context, q Querier, id string) (string, error) {
	var zone string
	err := q.QueryRow(ctx, "SELECT timezone FROM projects WHERE id = $1", id).Scan(&zone)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	return zone, err
}

// ProjectZones lists every project's time zone, by project id.
func ProjectZones(ctx context.Context, q Querier) ([]ProjectZone, error) {
	rows, err := q.Query(ctx, "SELECT id, timezone FROM projects ORDER BY id")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (ProjectZone, error) {
		var p ProjectZone
		return p, r.Scan(&p.ID, &p.Timezone)
	})
}
