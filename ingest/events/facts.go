package events

import (
	"strings"
	"time"
	"unicode"

	"mtk/facts"
	"mtk/ingest/factstream"
	"mtk/ingest/leads"
	"mtk/ingest/traffic"
	"mtk/platform/utm"
)

// The business fact an event counts as, from its names: config.alpha.name, else config.name,
// compared without case, spaces or punctuation. PageView (page_view) counts in page_views;
// Lead in leads; InitiateCheckout (initiate_checkout) in initiate_checkout. An event that
// creates a new lead counts in leads too, at most once per event. Other names count nowhere
// but are kept in the events table. Every event that counts writes a business row (BizRowOf),
// attributed or not; an attributed one also writes its fact (factsOf).

func foldName(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// BizRowOf is the business row (kind event) of an event as the events table keeps it, with the
// ad entity attribution gave it (zero when none), for a project in zone; false when the event
// counts nowhere. Ingestion and the backfill of stored events (Backfill) both build it
// here, so that they write the same rows.
func BizRowOf(e EventRow, attr facts.AdEntity, zone string) (factstream.BizRow, bool) {
	cfg := EventConfig{Name: e.Name}
	if e.AlphaName != "" {
		cfg.Alpha = &AlphaConfig{Name: e.AlphaName}
	}
	m := measuresOf(cfg, e.NewLead)
	if m.IsZero() {
		return factstream.BizRow{}, false
	}
	d := e.dims()
	return factstream.BizRow{TimeZone: zone, BizFact: facts.BizFact{ProjectID: e.ProjectID, Time: e.Time, Values: m,
		BizKeys: facts.BizKeys{Kind: facts.BizEvent, AdEntity: attr,
			UTMSource: d.UTMSource, UTMMedium: d.UTMMedium, UTMCampaign: d.UTMCampaign, UTMContent: d.UTMContent,
			UTMTerm: d.UTMTerm, ReferrerHost: d.ReferrerHost, LandingPath: d.LandingPath, Device: d.Device,
			Currency: e.Currency}}}, true
}

// dims are the event's traffic dimensions (traffic.Dims of its resolved UTM, page, referrer and
// User-Agent): its business row's keys and its journey touch's dimensions.
func (e *EventRow) dims() facts.TouchDims {
	u := utm.Params{Source: e.UTMSource, Medium: e.UTMMedium, Campaign: e.UTMCampaign, Content: e.UTMContent, Term: e.UTMTerm}
	return traffic.Dims(u, e.PageURL, e.Referrer, e.UserAgent)
}

// bizOf is the business rows of a batch's events (rows, as rowsOf gives them), in order.
func bizOf(evs []*event, rows []EventRow) []factstream.BizRow {
	var out []factstream.BizRow
	for i, ev := range evs {
		if r, ok := BizRowOf(rows[i], ev.attr, ev.target.Project.Timezone); ok {
			out = append(out, r)
		}
	}
	return out
}

// touchesOf are the touches of a batch's events of a lead (rows, as rowsOf gives them).
func touchesOf(rows []EventRow) []leads.Touch {
	var out []leads.Touch
	for _, e := range rows {
		if e.LeadID != "" {
			out = append(out, leads.Touch{LeadID: e.LeadID, EventID: e.EventID, Time: e.Time,
				Touch: traffic.Of(e.PageURL, e.Referrer, e.UserAgent), UTM: utm.Params{Source: e.UTMSource, Medium: e.UTMMedium,
					Campaign: e.UTMCampaign, Content: e.UTMContent, Term: e.UTMTerm}})
		}
	}
	return out
}

// eventTime is an event's instant.
func eventTime(ev *event) time.Time { return time.Unix(*ev.in.Timestamp, 0).UTC() }

func measuresOf(cfg EventConfig, newLead bool) facts.Values {
	var m facts.Values
	names := []string{cfg.Name}
	if cfg.Alpha != nil {
		names = append([]string{cfg.Alpha.Name}, names...)
	}
	for _, n := range names {
		switch foldName(n) {
		case "pageview":
			m[facts.PageViews] = 1
		case "lead":
			m[facts.Leads] = 1
		case "initiatecheckout":
			m[facts.InitiateCheckout] = 1
		default:
			continue
		}
		break
	}
	if newLead {
		m[facts.Leads] = 1
	}
	return m
}
