package orders

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/outbox"
	"mtk/platform"
)

// journeyOf is the journey row of a state (outbox.OrderJourney). id is the transaction's (a
// stored state read back does not carry it).
func (st stored) journeyOf(conn platform.WebhookConnection, p platform.Project, id string) (outbox.JourneyRow, bool) {
	return outbox.OrderJourney(p.ID, p.Timezone, conn.ID+"/"+id, st.leadID, st.Status, st.currency, st.created,
		st.value, st.productCost)
}

// queueJourney queues the order's journey change, its previous row negated (when the journey
// outbox has it: orders.journey) and its new one, and marks the order as written. The caller
// holds the order's row lock.
func queueJourney(ctx context.Context, tx pgx.Tx, w *pgx.Batch, conn platform.WebhookConnection, p platform.Project,
	prev stored, found bool, st stored, now time.Time) error {
	written := false
	if found {
		if err := tx.QueryRow(ctx, "SELECT journey FROM orders WHERE connection_id = $1 AND transaction_id = $2",
			conn.ID, st.ID).Scan(&written); err != nil {
			return err
		}
	}
	before, had := prev.journeyOf(conn, p, st.ID)
	after, has := st.journeyOf(conn, p, st.ID)
	had = had && written
	if had && has && before == after {
		return nil
	}
	var rows []outbox.JourneyRow
	if had {
		rows = append(rows, before.Negate())
	}
	if has {
		rows = append(rows, after)
	}
	outbox.QueueJourneys(w, rows, now)
	w.Queue("UPDATE orders SET journey = true WHERE connection_id = $1 AND transaction_id = $2", conn.ID, st.ID)
	return nil
}
