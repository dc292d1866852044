package jobs

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Ticks is shared by the runners of several workers, so that each tick of a job runs on one of
// them: Claim reports whether this runner is the first to claim the job's tick.
type Ticks interface {
	Claim(ctx context.Context, job string, tick time.Time) (bool, error)
}

// PostgresTicks claims ticks in the job_ticks table of the PostgreSQL that every worker shares.
func PostgresTicks(pool *pgxpool.Pool) Ticks { return pgTicks{pool} }

type pgTicks struct{ pool *pgxpool.Pool }

// Claim moves the job's row to tick when it holds an earlier one: of claims of the same tick,
// the second waits for the first to commit and then finds nothing to move.
func (t pgTicks) Claim(ctx context.Context, job string, tick time.Time) (bool, error) {
	var claimed bool
	err := t.pool.QueryRow(ctx, `INSERT INTO job_ticks AS j (job, tick) VALUES ($1, $2)
		ON CONFLICT (job) DO UPDATE SET tick = EXCLUDED.tick WHERE j.tick < EXCLUDED.tick RETURNING true`,
		job, tick).Scan(&claimed)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return claimed, err
}
