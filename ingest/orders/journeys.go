package orders

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/outbox"
	"mtk/platform"
)

// journeyOf is the journey row of a state (see outbox.JourneyRow): the order under its lead,
// attributed or not, at its created time; false for a failed order, which counts nothing. id is
// the transaction's (a stored state read back does not carry it).
func (st stored) journeyOf(conn platform.WebhookConnection, p platform.Project, id string) (outbox.JourneyRow, bool) {
	if st.Status == StatusFailed {
		return outbox.JourneyRow{}, false
	}
	r := outbox.JourneyRow{ProjectID: p.ID, TimeZone: p.Timezone, Kind: outbox.JourneyOrder, Time: st.created.UTC(),
		LeadID: st.leadID, OrderID: conn.ID + "/" + id, Currency: st.currency, CountTotal: 1}
	switch st.Status {
	case StatusApproved:
		r.Revenue, r.Count, r.ProductCosts = st.value*facts.MicrosPerMinor, 1, st.productCost*facts.MicrosPerMinor
	case StatusPending:
		r.CountPending = 1
	default: // refunded, chargeback
		r.CountRefunded = 1
	}
	return r, true
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
