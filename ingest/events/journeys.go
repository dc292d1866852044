package events

import (
	"time"

	"mtk/ingest/journeys"
	"mtk/ingest/leads"
)

// journeyTouchesOf is the journey touches of a batch's events (see journeys.JourneyRow): each event of a
// lead whose UTM resolved to an ad entity, in order. Attribution models credit orders from them.
func journeyTouchesOf(evs []*event, found []leads.Result) []journeys.JourneyRow {
	var out []journeys.JourneyRow
	for i, ev := range evs {
		if !ev.attributed || found[i].LeadID == "" {
			continue
		}
		a, p := ev.attr, ev.target.Project
		out = append(out, journeys.TouchRow(p.ID, p.Timezone, journeys.OriginEvent, ev.in.EventID, found[i].LeadID,
			time.Unix(*ev.in.Timestamp, 0), a))
	}
	return out
}
