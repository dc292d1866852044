package events

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
	"mtk/ingest/leads"
	"mtk/ingest/outbox"
	"mtk/platform"
)

// flush stores one batch (see the package comment) and answers each event.
func (s *Service) flush(ctx context.Context, evs []*event) ([]Result, error) {
	now := s.clock.Now()
	var found []leads.Result
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		found, err = s.applyLeads(ctx, tx, evs, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := s.insertEvents(ctx, evs, found); err != nil {
		return nil, err
	}
	w := &pgx.Batch{}
	outbox.QueueFacts(w, factsOf(evs, found), now)
	for i, ev := range evs {
		if err := queueConversions(w, ev, found[i].LeadID, now); err != nil {
			return nil, err
		}
	}
	if w.Len() > 0 {
		if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error { return tx.SendBatch(ctx, w).Close() }); err != nil {
			return nil, fmt.Errorf("events: queue facts and conversions: %w", err)
		}
	}
	containers := map[string]bool{}
	out := make([]Result, len(evs))
	for i, ev := range evs {
		containers[ev.target.Container.ID] = true
		out[i] = Result{Success: true, EventID: ev.in.EventID, Timestamp: *ev.in.Timestamp}
		if id := found[i].LeadID; id != "" {
			out[i].LeadID = &id
		}
	}
	s.touch(ctx, containers, now)
	return out, nil
}

// applyLeads resolves every event's lead, project by project in a fixed order (so that
// concurrent batches take the project locks in the same order).
func (s *Service) applyLeads(ctx context.Context, tx pgx.Tx, evs []*event, now time.Time) ([]leads.Result, error) {
	byProject := map[string][]int{}
	for i, ev := range evs {
		if ev.in.Lead.Identified() {
			byProject[ev.target.Project.ID] = append(byProject[ev.target.Project.ID], i)
		}
	}
	out := make([]leads.Result, len(evs))
	for _, project := range slices.Sorted(maps.Keys(byProject)) {
		idx := byProject[project]
		ups := make([]leads.Upsert, len(idx))
		for j, i := range idx {
			ups[j] = leads.Upsert{Identity: evs[i].in.Lead, UTM: evs[i].utm}
		}
		rs, err := leads.Apply(ctx, tx, project, ups, now)
		if err != nil {
			return nil, err
		}
		for j, i := range idx {
			out[i] = rs[j]
		}
	}
	return out, nil
}

// queueConversions queues an event with config.alpha for each first-network pixel of its
// container.
func queueConversions(w *pgx.Batch, ev *event, leadID string, now time.Time) error {
	a := ev.in.Config.Alpha
	if a == nil {
		return nil
	}
	in := capi.Input{
		EventName: a.Name, EventTime: time.Unix(*ev.in.Timestamp, 0), EventID: ev.in.EventID,
		ActionSource: actionSource(a.SourceKey, ev.in.Source), PageURL: ev.in.Page.URL,
		Lead: capiLead(ev.in.Lead, leadID), Cookies: ev.in.Cookies, ClientIP: ev.meta.ClientIP,
		UserAgent: ev.meta.UserAgent, ValueCents: ev.in.Value, Currency: currencyOf(ev),
	}
	if in.ValueCents == nil {
		in.Currency = ""
	}
	for _, px := range ev.target.Container.LinkedPixels {
		if px.Source != platform.KindAlpha {
			continue
		}
		c := outbox.Conversion{ProjectID: ev.target.Project.ID, PixelID: px.ID, Input: in}
		if err := outbox.QueueConversion(w, c, now); err != nil {
			return err
		}
	}
	return nil
}

// actionSource is config.alpha.sourceKey when sent, else website for website events, chat for
// whatsapp ones and other for api ones.
func actionSource(key, source string) capi.ActionSource {
	if a, ok := capi.ParseActionSource(key); ok {
		return a
	}
	switch source {
	case SourceWebsite:
		return capi.Website
	case SourceWhatsApp:
		return capi.Chat
	}
	return capi.Other
}

// capiLead is the event's identity for advanced matching; the lead id is the external id when
// the event sends none.
func capiLead(id leads.Identity, leadID string) capi.Lead {
	l := capi.Lead{Email: id.Email, Phone: id.Phone, Name: id.Name, FirstName: id.FirstName, LastName: id.LastName,
		City: id.City, State: id.State, Zip: id.Zip, Country: id.Country, ExternalID: id.ExternalID}
	if l.ExternalID == "" {
		l.ExternalID = leadID
	}
	return l
}

func currencyOf(ev *event) string {
	if ev.in.Currency != "" {
		return ev.in.Currency
	}
	return ev.target.Project.Currency
}

// insertEvents writes every event, attributed or not, to the events table.
func (s *Service) insertEvents(ctx context.Context, evs []*event, found []leads.Result) error {
	batch, err := s.ch.PrepareBatch(ctx, `INSERT INTO events (project_id, container_id, event_id, ts, received_at,
		name, alpha_name, source, lead_id, new_lead, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
		campaign_id, adset_id, ad_id, page_url, referrer, value, currency, client_ip, user_agent, body)`)
	if err != nil {
		return fmt.Errorf("events: insert events: %w", err)
	}
	defer batch.Close()
	for i, ev := range evs {
		alpha, value := "", int64(0)
		if ev.in.Config.Alpha != nil {
			alpha = ev.in.Config.Alpha.Name
		}
		if ev.in.Value != nil {
			value = *ev.in.Value
		}
		var newLead uint8
		if found[i].New {
			newLead = 1
		}
		u := ev.utm
		if err := batch.Append(ev.target.Project.ID, ev.target.Container.ID, ev.in.EventID,
			time.Unix(*ev.in.Timestamp, 0).UTC(), ev.received.UTC(), ev.in.Config.Name, alpha, ev.in.Source,
			found[i].LeadID, newLead, u.Source, u.Medium, u.Campaign, u.Content, u.Term,
			ev.attr.CampaignID, ev.attr.AdsetID, ev.attr.AdID, ev.in.Page.URL, ev.in.Page.Referrer, value,
			currencyOf(ev), ev.meta.ClientIP, ev.meta.UserAgent, string(ev.raw)); err != nil {
			return fmt.Errorf("events: insert events: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("events: insert events: %w", err)
	}
	return nil
}

// factsOf is the business facts of a batch's attributed events (see measuresOf), in order.
func factsOf(evs []*event, found []leads.Result) []outbox.FactRow {
	var out []outbox.FactRow
	for i, ev := range evs {
		m := measuresOf(ev.in.Config, found[i].New)
		if !ev.attributed || m.zero() {
			continue
		}
		a, p := ev.attr, ev.target.Project
		out = append(out, outbox.FactRow{ProjectID: p.ID, TimeZone: p.Timezone, Time: time.Unix(*ev.in.Timestamp, 0),
			Source: a.Source, ConnectionID: a.ConnectionID, AccountID: a.AccountID, CampaignID: a.CampaignID,
			AdsetID: a.AdsetID, AdID: a.AdID, Currency: p.Currency,
			PageViews: m.pageViews, Leads: m.leads, InitiateCheckout: m.initiateCheckout})
	}
	return out
}
