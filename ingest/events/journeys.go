package events

import (
	"time"

	"mtk/ingest/journeys"
	"mtk/ingest/leads"
)

// journeyTouchesOf is the journey touches of a batch's events (see journeys.JourneyRow): each
// marketing touch of a lead (event.touch), on the ad entity its UTM resolved to (none when it
// resolved to none), with its traffic dimensions, in order. Attribution models credit orders from
// them.
func journeyTouchesOf(evs []*event, found []leads.Result) []journeys.JourneyRow {
	var out []journeys.JourneyRow
	for i, ev := range evs {
		if !ev.touch || found[i].LeadID == "" {
			continue
		}
		p := ev.target.Project
		out = append(out, journeys.TouchRow(p.ID, p.Timezone, journeys.OriginEvent, ev.in.EventID, found[i].LeadID,
			time.Unix(*ev.in.Timestamp, 0), ev.attr, ev.dims))
	}
	return out
}
