package platform

import (
	"context"

	"github.com/jackc/pgx/v5"
)

// ConnectionKinds are the kinds (alpha_ads, custom, …) of a project's connections, by connection
// id, read on q: what the attribution of its events and orders names each synced ad entity's
// source by.
func ConnectionKinds(ctx context.Context, q Querier, projectID string) (map[string]string, error) {
	rows, err := q.Query(ctx, "SELECT id, kind FROM connections WHERE project_id = $1", projectID)
	if err != nil {
		return nil, err
	}
	kinds := map[string]string{}
	var id, kind string
	_, err = pgx.ForEachRow(rows, []any{&id, &kind}, func() error {
		kinds[id] = kind
		return nil
	})
	return kinds, err
}
