// Package fires fires the triggers that run on the server: checkout_transaction_approved (an
// order's first approval), click_tracking_link (a visit of a /l/ link) and
// whatsapp_keyword_message (a decoded chat message holding the trigger's keyword). A firing is one
// event, named by the trigger's config.name, written to the event outbox, and one conversion
// named by config.alpha for each first-network pixel of the trigger's container.
//
// Exactly once: a firing's event id is derived from its trigger and its occurrence (the order,
// the click, the message), and it is written in the caller's transaction only if it claims that
// id in its project (events.QueueEventOnce, the same event_ids table the events service claims
// in), so a repeated webhook, a retried decode or a concurrent duplicate writes nothing more. The
// conversion outbox keeps one row per pixel, event name and event id likewise.
package fires

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/capi"
	"mtk/ingest/conversions"
	"mtk/ingest/events"
	"mtk/internal/ids"
	"mtk/platform"
	"mtk/platform/utm"
)

// Occurrence is one thing that happened on the server, firing the triggers of its type.
type Occurrence struct {
	// Key tells it from every other occurrence of its type, stably across repeats: "order:" plus
	// connection and transaction, "click:" plus the click id, "message:" plus the text's digest.
	Key string
	// Source is the events' source (api, whatsapp or website).
	Source string
	// Conversion holds what the network is told: everything but the event name and, when empty,
	// the event id (then the firing's). Its time, page, client, value and currency are the
	// event's too.
	Conversion capi.Input
	LeadID     string
	UTM        utm.Params
	Attr       facts.AdEntity
}

// EventID is the event id of trigger triggerID's firing for the occurrence with key.
func EventID(triggerID, key string) string {
	h := sha256.Sum256([]byte(triggerID + "\x00" + key))
	return ids.Event + "_" + hex.EncodeToString(h[:12])
}

// body is what a fired event keeps as its request body: what fired it.
type body struct {
	TriggerID  string `json:"trigger_id"`
	Occurrence string `json:"occurrence"`
}

// Queue queues on w, in the caller's transaction, the firing of t for o: its event, once, and
// its conversion for each of the container's first-network pixels.
func Queue(w *pgx.Batch, t platform.ServerTrigger, o Occurrence, now time.Time) error {
	id := EventID(t.ID, o.Key)
	b, err := json.Marshal(body{TriggerID: t.ID, Occurrence: o.Key})
	if err != nil {
		return err
	}
	c := o.Conversion
	var value int64
	if c.ValueCents != nil {
		value = *c.ValueCents
	}
	a := o.Attr
	events.QueueEventOnce(w, events.EventRow{ProjectID: t.ProjectID, ContainerID: t.ContainerID, EventID: id,
		Time: c.EventTime.UTC(), ReceivedAt: now.UTC(), Name: t.Config.Name, AlphaName: t.Config.Alpha.Name,
		Source: o.Source, LeadID: o.LeadID, UTMSource: o.UTM.Source, UTMMedium: o.UTM.Medium,
		UTMCampaign: o.UTM.Campaign, UTMContent: o.UTM.Content, UTMTerm: o.UTM.Term, CampaignID: a.CampaignID,
		AdsetID: a.AdsetID, AdID: a.AdID, PageURL: c.PageURL, Value: value, Currency: c.Currency,
		ClientIP: c.ClientIP, UserAgent: c.UserAgent, Body: string(b)}, now)
	c.EventName = t.Config.Alpha.Name
	if c.EventID == "" {
		c.EventID = id
	}
	for _, px := range t.AlphaPixels {
		if err := conversions.Queue(w, conversions.Conversion{ProjectID: t.ProjectID, PixelID: px, Input: c}, now); err != nil {
			return err
		}
	}
	return nil
}

// QueueAll queues the firing of each of triggers for o.
func QueueAll(w *pgx.Batch, triggers []platform.ServerTrigger, o Occurrence, now time.Time) error {
	for _, t := range triggers {
		if err := Queue(w, t, o, now); err != nil {
			return err
		}
	}
	return nil
}
