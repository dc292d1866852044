package conversions

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/internal/apperr"
)

// Item is a queued conversion as an operator sees it.
type Item struct {
	ID            int64     `json:"id"`
	ProjectID     string    `json:"project_id"`
	PixelID       string    `json:"pixel_id"`
	EventName     string    `json:"event_name"`
	EventID       string    `json:"event_id"`
	Status        string    `json:"status"`
	Attempts      int       `json:"attempts"`
	NextAttemptAt time.Time `json:"next_attempt_at"`
	LastError     string    `json:"last_error"`
	CreatedAt     time.Time `json:"created_at"`
}

// List returns the latest conversions of a status (empty: pending and dead), newest first.
func List(ctx context.Context, pool *pgxpool.Pool, status string, limit int) ([]Item, error) {
	rows, err := pool.Query(ctx, `SELECT id, project_id, pixel_id, event_name, event_id, status, attempts,
		next_attempt_at, last_error, created_at FROM conversion_outbox
		WHERE ($1 = '' AND status <> 'sent') OR status = $1 ORDER BY id DESC LIMIT $2`, status, limit)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Item, error) {
		var it Item
		err := r.Scan(&it.ID, &it.ProjectID, &it.PixelID, &it.EventName, &it.EventID, &it.Status, &it.Attempts,
			&it.NextAttemptAt, &it.LastError, &it.CreatedAt)
		return it, err
	})
}

// Retry makes a dead or pending conversion due now, with its attempts reset.
func Retry(ctx context.Context, pool *pgxpool.Pool, id int64, now time.Time) error {
	tag, err := pool.Exec(ctx, `UPDATE conversion_outbox SET status = 'pending', attempts = 0, next_attempt_at = $2
		WHERE id = $1 AND status <> 'sent'`, id, now)
	if err == nil && tag.RowsAffected() == 0 {
		return apperr.NotFound("No pending or dead conversion with this id.")
	}
	return err
}

// Stats counts the outboxes.
type Stats struct {
	Conversions map[string]int64 `json:"conversions"` // by status
	Facts       struct {
		Pending int64 `json:"pending"` // rows not yet in ClickHouse (applied rows are deleted)
	} `json:"facts"`
	Events struct {
		Pending int64 `json:"pending"` // rows not yet in ClickHouse (applied rows are deleted)
	} `json:"events"`
	Journeys struct {
		Pending int64 `json:"pending"` // rows not yet in ClickHouse (applied rows are deleted)
	} `json:"journeys"`
}

// Count returns the outboxes' counts.
func Count(ctx context.Context, pool *pgxpool.Pool) (Stats, error) {
	s := Stats{Conversions: map[string]int64{StatusPending: 0, StatusSent: 0, StatusDead: 0}}
	rows, err := pool.Query(ctx, "SELECT status, count(*) FROM conversion_outbox GROUP BY status")
	if err != nil {
		return s, err
	}
	for rows.Next() {
		var st string
		var n int64
		if err := rows.Scan(&st, &n); err != nil {
			rows.Close()
			return s, err
		}
		s.Conversions[st] = n
	}
	rows.Close()
	err = pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM fact_outbox), (SELECT count(*) FROM event_outbox),
		(SELECT count(*) FROM journey_outbox)`).Scan(&s.Facts.Pending, &s.Events.Pending, &s.Journeys.Pending)
	return s, err
}

// Backlog is what waits in one outbox.
type Backlog struct {
	// Pending counts the rows not yet applied (facts) or not yet sent nor dead (conversions).
	Pending int64
	// Oldest is when the oldest of them was queued; zero when there is none.
	Oldest time.Time
}

// Backlogs reads the fact, conversion and journey outboxes' backlogs in one statement that only
// visits pending rows (the fact and journey outboxes hold nothing else, and their oldest row is
// their first by id; conversions through the partial index conversion_outbox_due), cheap enough
// for every metrics scrape.
func Backlogs(ctx context.Context, pool *pgxpool.Pool) (facts, conversions, journeys Backlog, err error) {
	var factsOldest, convOldest, journeysOldest *time.Time
	err = pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM fact_outbox),
		(SELECT created_at FROM fact_outbox ORDER BY id LIMIT 1),
		(SELECT count(*) FROM conversion_outbox WHERE status = 'pending'),
		(SELECT min(created_at) FROM conversion_outbox WHERE status = 'pending'),
		(SELECT count(*) FROM journey_outbox),
		(SELECT created_at FROM journey_outbox ORDER BY id LIMIT 1)`).
		Scan(&facts.Pending, &factsOldest, &conversions.Pending, &convOldest, &journeys.Pending, &journeysOldest)
	for _, o := range []struct {
		at *time.Time
		b  *Backlog
	}{{factsOldest, &facts}, {convOldest, &conversions}, {journeysOldest, &journeys}} {
		if o.at != nil {
			o.b.Oldest = *o.at
		}
	}
	return facts, conversions, journeys, err
}
