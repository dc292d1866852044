package outbox

import (
	"time"

	"github.com/jackc/pgx/v5"
)

// QueueEventOnce queues e on w, to be written in the caller's transaction, only if it claims its
// event name and id in its project (table event_ids, keyed as the events service claims the ids of
// the events it stores: the name is config.name, else the network's): a repeat of e, sequential or concurrent, writes nothing. The outbox's size grows by
// what was written. One statement, so that the claim, the row and the size change go together.
func QueueEventOnce(w *pgx.Batch, e EventRow, now time.Time) {
	args := make([]any, 0, 26)
	for _, v := range e.eventText() {
		args = append(args, v)
	}
	args = append(args, e.Time, e.ReceivedAt, e.NewLead, e.Value, e.Body, now)
	w.Queue(`WITH claim AS (
			INSERT INTO event_ids (project_id, event_name, event_id, lead_id, ts, created_at)
			VALUES ($1, coalesce(nullif($4, ''), $5), $3, nullif($7, ''), extract(epoch FROM $21::timestamptz)::bigint, $26)
			ON CONFLICT (project_id, event_name, event_id) DO NOTHING RETURNING 1),
		stored AS (
			INSERT INTO event_outbox (`+eventTextColumns+`, ts, received_at, new_lead, value, body)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
				$21::timestamptz, $22::timestamptz, $23::boolean, $24::bigint, $25 FROM claim RETURNING 1)
		INSERT INTO outbox_sizes AS s (outbox, backend, n)
		SELECT 'event_outbox', pg_backend_pid(), count(*) FROM stored HAVING count(*) > 0
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, args...)
}
