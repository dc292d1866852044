package credits

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// people maps each lead of the people of leads to its person, the root lead (leads: root =
// merged_into, else the lead itself), so that a touch under an identifier found before a merge
// credits the orders found under the survivor. A lead PostgreSQL does not know is its own person.
func people(ctx context.Context, tx pgx.Tx, project string, leads []string) (map[string]string, error) {
	rows, err := tx.Query(ctx, `WITH roots AS (SELECT DISTINCT coalesce(merged_into, id) AS root FROM leads
			WHERE project_id = $1 AND id = ANY($2))
		SELECT r.root, l.id FROM roots r JOIN leads l ON l.id = r.root OR l.merged_into = r.root`, project, leads)
	if err != nil {
		return nil, fmt.Errorf("read people: %w", err)
	}
	personOf := map[string]string{}
	var root, lead string
	if _, err := pgx.ForEachRow(rows, []any{&root, &lead}, func() error {
		personOf[lead] = root
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read people: %w", err)
	}
	for _, l := range leads {
		if _, ok := personOf[l]; !ok {
			personOf[l] = l
		}
	}
	return personOf, nil
}
