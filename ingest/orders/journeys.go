package orders

import (
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
// has it: orders.journey, read with the row's lock) and its new one; changed is false when the
// journey stays as it is.
func journeyChange(conn platform.WebhookConnection, p platform.Project, prev stored, found bool,
	st stored) (rows []journeys.JourneyRow, changed bool) {
	before, had := prev.journeyOf(conn, p, st.ID)
	after, has := st.journeyOf(conn, p, st.ID)
	had = had && found && prev.journey
	if had && has && before == after {
		return nil, false
	}
	if had {
		rows = append(rows, before.Negate())
	}
	if has {
		rows = append(rows, after)
	}
	return rows, true
}

// queueJourney queues the rows of a journey change and marks the order as written.
func queueJourney(w *pgx.Batch, conn platform.WebhookConnection, st stored, rows []journeys.JourneyRow, now time.Time) {
	journeys.QueueJourneys(w, rows, now)
	w.Queue("UPDATE orders SET journey = true WHERE connection_id = $1 AND transaction_id = $2", conn.ID, st.ID)
}
