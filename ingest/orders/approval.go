package orders

import (
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
	"mtk/ingest/conversions"
	"mtk/ingest/events"
	"mtk/ingest/fires"
	"mtk/platform"
)

// approval is what an order's first approval sends: the Purchase conversion to pixels (when the
// connection forwards purchases) and the firings of the project's checkout triggers.
type approval struct {
	pixels   []string
	triggers []platform.ServerTrigger
}

// queueReads queues the reads of what a first approval in the project sends on b (ap is filled
// when b's results are closed).
func (ap *approval) queueReads(b *pgx.Batch, projectID string, forward bool) {
	if forward {
		platform.QueueProjectPixels(b, projectID, platform.KindAlpha, &ap.pixels)
	}
	platform.QueueProjectServerTriggers(b, projectID, platform.TriggerCheckoutApproved, &ap.triggers)
}

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
