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

// flush stores one batch (see the package comment) and answers each event: a repeat of an
// event_id (within the batch or of a stored event) with the first event's lead and timestamp.
func (s *Service) flush(ctx context.Context, evs []*event) ([]Result, error) {
	now := s.clock.Now()
	found, c, err := s.store(ctx, evs, now)
	if err != nil {
		return nil, fmt.Errorf("events: store batch: %w", err)
	}
	stored, firstOf := c.firsts(evs)
	containers := map[string]bool{}
	out := make([]Result, len(evs))
	for i, ev := range evs {
		containers[ev.target.Container.ID] = true
		leadID, ts := found[firstOf[i]].LeadID, *evs[firstOf[i]].in.Timestamp
		if !stored[firstOf[i]] { // a repeat of a stored event
			f := c.first[eventKey{ev.target.Project.ID, ev.in.EventID}]
			leadID, ts = f.leadID, f.ts
		}
		out[i] = Result{Success: true, EventID: ev.in.EventID, Timestamp: ts}
		if leadID != "" {
			out[i].LeadID = &leadID
		}
	}
	s.touch(ctx, containers, now)
	return out, nil
}

// store writes a batch in one transaction of three round trips: BEGIN with the claim of the
// events' ids (event_ids); then, for the events that claimed theirs (the others repeat an
// event and are stored nowhere), every project's lead lock and read; then the writes of the
// leads, events, facts and conversions with COMMIT. It returns each event's lead (none for a
// repeat) and the claims. On failure nothing is stored: a connection left inside the
// transaction is closed by the pool on release, which rolls it back. The transaction's
// statements run on generic plans that look leads up by index (leads.GenericPlans).
func (s *Service) store(ctx context.Context, evs []*event, now time.Time) ([]leads.Result, *claims, error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, nil, err
	}
	defer conn.Release()
	claim := &pgx.Batch{}
	claim.Queue("BEGIN")
	claim.Queue(leads.GenericPlans)
	c := queueClaims(claim, evs, now)
	br := conn.SendBatch(ctx, claim)
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = c.read(br)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, err
	}
	stored, _ := c.firsts(evs)
	byProject := map[string][]int{}
	for i, ev := range evs {
		if stored[i] && ev.in.Lead.Identified() {
			byProject[ev.target.Project.ID] = append(byProject[ev.target.Project.ID], i)
		}
	}
	// Projects in a fixed order, so that concurrent batches take the lead locks in the same order.
	projects := slices.Sorted(maps.Keys(byProject))
	plans := make([]*leads.Plan, len(projects))
	load := &pgx.Batch{}
	for j, project := range projects {
		ups := make([]leads.Upsert, len(byProject[project]))
		for k, i := range byProject[project] {
			ups[k] = leads.Upsert{Identity: evs[i].in.Lead, UTM: evs[i].utm}
		}
		plans[j] = leads.NewPlan(project, ups)
		plans[j].QueueLoad(load)
	}
	if len(plans) > 0 {
		br = conn.SendBatch(ctx, load)
		for _, p := range plans {
			if err = p.ReadLoad(br); err != nil {
				break
			}
		}
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, nil, err
		}
	}
	w := &pgx.Batch{}
	found := make([]leads.Result, len(evs))
	for j, p := range plans {
		for k, r := range p.Resolve(w, now) {
			found[byProject[projects[j]][k]] = r
		}
	}
	var keep []*event
	var kept []leads.Result
	leadIDs := make([]string, len(evs))
	for i, ev := range evs {
		leadIDs[i] = found[i].LeadID
		if stored[i] {
			keep, kept = append(keep, ev), append(kept, found[i])
		}
	}
	c.queueLeads(w, evs, stored, leadIDs)
	outbox.QueueEvents(w, rowsOf(keep, kept))
	outbox.QueueFacts(w, factsOf(keep, kept), now)
	for i, ev := range keep {
		if err := queueConversions(w, ev, kept[i].LeadID, now); err != nil {
			return nil, nil, err
		}
	}
	w.Queue("COMMIT")
	if err := conn.SendBatch(ctx, w).Close(); err != nil {
		return nil, nil, err
	}
	return found, c, nil
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

// rowsOf is the events table's rows of a batch: every event, attributed or not, in order.
func rowsOf(evs []*event, found []leads.Result) []outbox.EventRow {
	out := make([]outbox.EventRow, len(evs))
	for i, ev := range evs {
		alpha, value := "", int64(0)
		if ev.in.Config.Alpha != nil {
			alpha = ev.in.Config.Alpha.Name
		}
		if ev.in.Value != nil {
			value = *ev.in.Value
		}
		u, a := ev.utm, ev.attr
		out[i] = outbox.EventRow{ProjectID: ev.target.Project.ID, ContainerID: ev.target.Container.ID,
			EventID: ev.in.EventID, Time: time.Unix(*ev.in.Timestamp, 0).UTC(), ReceivedAt: ev.received.UTC(),
			Name: ev.in.Config.Name, AlphaName: alpha, Source: ev.in.Source, LeadID: found[i].LeadID,
			NewLead: found[i].New, UTMSource: u.Source, UTMMedium: u.Medium, UTMCampaign: u.Campaign,
			UTMContent: u.Content, UTMTerm: u.Term, CampaignID: a.CampaignID, AdsetID: a.AdsetID, AdID: a.AdID,
			PageURL: ev.in.Page.URL, Referrer: ev.in.Page.Referrer, Value: value, Currency: currencyOf(ev),
			ClientIP: ev.meta.ClientIP, UserAgent: ev.meta.UserAgent, Body: string(ev.raw)}
	}
	return out
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
