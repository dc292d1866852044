package orders

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/journeys"
	"mtk/platform"
)

// journeyOf is the journey row of a state (journeys.OrderJourney). id is the transaction's (a
// stored state read back does not carry it).
func (st stored) journeyOf(conn platform.WebhookConnection, p platform.Project, id string) (journeys.JourneyRow, bool) {
	return journeys.OrderJourney(p.ID, p.Timezone, conn.ID+"/"+id, st.leadID, st.Status, st.currency, st.created,
		st.value, st.productCost)
}

// journeyChange is the order's journey change: its previous row negated (when the journey outbox
// has it: orders.journey) and its new one; changed is false when the journey stays as it is.
// The caller holds the order's row lock.
func journeyChange(ctx context.Context, tx pgx.Tx, conn platform.WebhookConnection, p platform.Project,
	prev stored, found bool, st stored) (rows []journeys.JourneyRow, changed bool, err error) {
	written := false
	if found {
		if err := tx.QueryRow(ctx, "SELECT journey FROM orders WHERE connection_id = $1 AND transaction_id = $2",
			conn.ID, st.ID).Scan(&written); err != nil {
			return nil, false, err
		}
	}
	before, had := prev.journeyOf(conn, p, st.ID)
	after, has := st.journeyOf(conn, p, st.ID)
	had = had && written
	if had && has && before == after {
		return nil, false, nil
	}
	if had {
		rows = append(rows, before.Negate())
	}
	if has {
		rows = append(rows, after)
	}
	return rows, true, nil
}

// queueJourney queues the rows of a journey change and marks the order as written.
func queueJourney(w *pgx.Batch, conn platform.WebhookConnection, st stored, rows []journeys.JourneyRow, now time.Time) {
	journeys.QueueJourneys(w, rows, now)
	w.Queue("UPDATE orders SET journey = true WHERE connection_id = $1 AND transaction_id = $2", conn.ID, st.ID)
}
