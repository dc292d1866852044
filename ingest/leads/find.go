package leads

import (
	"context"
	"strings"

	"github.com/jackc/pgx/v5"

	"mtk/internal/ids"
	"mtk/platform/utm"
)

// Querier is what Find reads through: a pool or a transaction.
type Querier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Lead is a found lead: its id (a root) and its latest UTM.
type Lead struct {
	ID  string
	UTM utm.Params
}

// Find returns the lead that an order names, and false when none: by a lead id (leadRef, when it
// has the lead_ prefix), else by e-mail, else by phone, else by document.
func Find(ctx context.Context, q Querier, projectID, leadRef string, id Identity) (Lead, bool, error) {
	k := id.keys()
	if !strings.HasPrefix(leadRef, ids.Lead+"_") {
		leadRef = ""
	}
	if leadRef == "" && k == (keys{}) {
		return Lead{}, false, nil
	}
	var l Lead
	err := q.QueryRow(ctx, `SELECT r.id, r.utm_source, r.utm_medium, r.utm_campaign, r.utm_content, r.utm_term
		FROM leads l JOIN leads r ON r.id = coalesce(l.merged_into, l.id)
		WHERE l.project_id = $1 AND (l.id = $2 OR l.email = $3 OR l.phone = $4 OR l.document = $5)
		ORDER BY l.id = $2 DESC, l.email = $3 DESC NULLS LAST, l.phone = $4 DESC NULLS LAST LIMIT 1`,
		projectID, leadRef, nullable(k.email), nullable(k.phone), nullable(k.document)).
		Scan(&l.ID, &l.UTM.Source, &l.UTM.Medium, &l.UTM.Campaign, &l.UTM.Content, &l.UTM.Term)
	if err == pgx.ErrNoRows {
		return Lead{}, false, nil
	}
	return l, err == nil, err
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
