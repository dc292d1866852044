package events

import (
	"time"

	"mtk/ingest/leads"
	"mtk/ingest/outbox"
)

// journeyTouchesOf is the journey touches of a batch's events (see outbox.JourneyRow): each event of a
// lead whose UTM resolved to an ad entity, in order. Attribution models credit orders from them.
func journeyTouchesOf(evs []*event, found []leads.Result) []outbox.JourneyRow {
	var out []outbox.JourneyRow
	for i, ev := range evs {
		if !ev.attributed || found[i].LeadID == "" {
			continue
		}
		a, p := ev.attr, ev.target.Project
		out = append(out, outbox.JourneyRow{ProjectID: p.ID, TimeZone: p.Timezone, Kind: outbox.JourneyTouch,
			Time: time.Unix(*ev.in.Timestamp, 0).UTC(), LeadID: found[i].LeadID, EventID: ev.in.EventID, Origin: outbox.OriginEvent, AdEntity: a})
	}
	return out
}
