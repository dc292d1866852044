package credits

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// Backlog is what waits for the credits: marks the Worker has not taken, and credit_outbox rows
// the credit drainer has not landed (Oldest: when the oldest was queued; zero when none waits).
type Backlog struct {
	Marks, Outbox int64
	Oldest        time.Time
}

// Backlogs reads the backlog in one statement, cheap enough for every metrics scrape.
func Backlogs(ctx context.Context, pool *pgxpool.Pool) (Backlog, error) {
	var b Backlog
	var oldest *time.Time
	err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM credit_dirty), (SELECT count(*) FROM credit_outbox),
		(SELECT created_at FROM credit_outbox ORDER BY id LIMIT 1)`).Scan(&b.Marks, &b.Outbox, &oldest)
	if oldest != nil {
		b.Oldest = *oldest
	}
	return b, err
}
