package orders

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
	"mtk/ingest/conversions"
	"mtk/ingest/events"
	"mtk/ingest/fires"
	"mtk/platform"
)

// queueApproval queues, on the transaction's first approved state, the Purchase conversion for
// each of ap's pixels and the firing of each of ap's checkout triggers, and records that it did
// (purchase_queued): a repeated webhook, or an approval after a refund, sends nothing more.
func queueApproval(w *pgx.Batch, conn platform.WebhookConnection, p platform.Project, prev stored, found bool, st stored, ap approval, now time.Time) error {
	if st.Status != StatusApproved || found && prev.purchaseQueued {
		return nil
	}
	w.Queue("UPDATE orders SET purchase_queued = true WHERE connection_id = $1 AND transaction_id = $2", conn.ID, st.ID)
	value := st.value
	in := capi.Input{EventName: "Purchase", EventTime: st.updated, EventID: st.ID, ActionSource: capi.Other,
		Lead:       capi.Lead{Email: st.Customer.Email, Phone: st.Customer.Phone, Name: st.Customer.Name, ExternalID: st.leadID},
		ValueCents: &value, Currency: st.currency, OrderID: st.ID}
	for _, it := range st.Items {
		in.Items = append(in.Items, capi.Item{ID: it.ID, Quantity: it.Quantity, UnitPriceCents: it.UnitPrice})
	}
	for _, px := range ap.pixels {
		if err := conversions.Queue(w, conversions.Conversion{ProjectID: p.ID, PixelID: px, Input: in}, now); err != nil {
			return err
		}
	}
	// A trigger's conversion keeps the transaction id as its event id, as the Purchase does, so
	// that a trigger sending Purchase to the same pixel is the same conversion, stored once.
	in.EventName = ""
	return fires.QueueAll(w, ap.triggers, fires.Occurrence{Key: "order:" + conn.ID + ":" + st.ID, Source: events.SourceAPI,
		Conversion: in, LeadID: st.leadID, UTM: st.UTM, Attr: st.attr}, now)
}

// lateApproval handles a webhook not newer than the stored state prev: it changes nothing of
// the order, but when it says approved and no approval was seen yet (the webhooks came in
// another order than they were sent: refunded, then the approval before it), that approval is
// the order's first, and is sent as such.
func lateApproval(ctx context.Context, tx pgx.Tx, conn platform.WebhookConnection, p platform.Project, prev, st stored, ap approval, now time.Time) error {
	w := &pgx.Batch{}
	if err := queueApproval(w, conn, p, prev, true, st, ap, now); err != nil || w.Len() == 0 {
		return err
	}
	return tx.SendBatch(ctx, w).Close()
}
