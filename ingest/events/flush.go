package events

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/ingest/capi"
	"mtk/ingest/conversions"
	"mtk/ingest/factstream"
	"mtk/ingest/journeys"
	"mtk/ingest/leads"
	"mtk/ingest/outbox"
	"mtk/internal/db"
	"mtk/platform"
)

// flush stores one batch (see the package comment) and answers each event. The events past what
// the outboxes' bounds leave room for are refused (Result.refused), the batch's first ones
// stored; an event holding a value PostgreSQL refuses is set apart (storeApart).
func (s *Service) flush(ctx context.Context, evs []*event) ([]Result, error) {
	now := s.clock.Now()
	out := make([]Result, len(evs))
	if err := s.storeApart(ctx, evs, out, now); err != nil {
		return nil, fmt.Errorf("events: store batch: %w", err)
	}
	containers := map[string]bool{}
	for i, ev := range evs {
		if out[i].Success {
			containers[ev.target.Container.ID] = true
		}
	}
	s.touch(ctx, containers, now)
	return out, nil
}

// storeApart stores evs into out (storeFitting), setting apart the events that hold a value
// PostgreSQL refuses (db.Refused: a NUL or invalid UTF-8 in a text that no check caught, say):
// when the batch's transaction fails so, it has been rolled back, and each half of the batch is
// stored on its own (setApart). Any other failure of the batch is its error.
func (s *Service) storeApart(ctx context.Context, evs []*event, out []Result, now time.Time) error {
	err := s.storeFitting(ctx, evs, out, now)
	if !db.Refused(err) {
		return err
	}
	s.setApart(ctx, evs, out, now, err)
	return nil
}

// setApart stores, into out, the events of evs, whose transaction PostgreSQL failed with refused
// (a value it refuses): each half on its own, down to the one event that fails alone, answered
// as invalid (Result.invalid). One bad event costs a batch about 2·log₂(n) more transactions, and
// every other event, of any tenant, is stored once, as if it had not been sent. A part that
// fails otherwise (an outage meanwhile) has its events failed (Result.failed), not those of the
// parts already stored.
func (s *Service) setApart(ctx context.Context, evs []*event, out []Result, now time.Time, refused error) {
	if len(evs) == 1 {
		s.log.Warn("events: event refused by PostgreSQL", "project", evs[0].target.Project.ID,
			"event_id", evs[0].in.EventID, "error", refused.Error())
		out[0] = Result{invalid: true}
		return
	}
	mid := len(evs) / 2
	for _, r := range [][2]int{{0, mid}, {mid, len(evs)}} {
		part, partOut := evs[r[0]:r[1]], out[r[0]:r[1]]
		switch err := s.storeFitting(ctx, part, partOut, now); {
		case db.Refused(err):
			s.setApart(ctx, part, partOut, now, err)
		case err != nil:
			for i := range partOut {
				partOut[i] = Result{failed: err}
			}
		}
	}
}

// storeFitting stores evs, or as many of its first events as the outboxes have room for, into
// out; the others are refused (Result.refused).
func (s *Service) storeFitting(ctx context.Context, evs []*event, out []Result, now time.Time) error {
	admit := evs
	for len(admit) > 0 {
		stored, fit, err := s.store(ctx, admit, now)
		if err != nil {
			return err
		}
		if fit == len(admit) {
			copy(out, stored)
			break
		}
		admit = admit[:fit]
	}
	for i := len(admit); i < len(evs); i++ {
		out[i] = Result{refused: true}
	}
	return nil
}

// answers are the answers of a stored batch: a repeat of an event_id (within the batch or of a
// stored event) is answered with the first event's lead and timestamp.
func answers(evs []*event, found []leads.Result, c *claims) []Result {
	stored, firstOf := c.firsts(evs)
	out := make([]Result, len(evs))
	for i, ev := range evs {
		leadID, ts := found[firstOf[i]].LeadID, *evs[firstOf[i]].in.Timestamp
		if !stored[firstOf[i]] { // a repeat of a stored event
			f := c.first[keyOf(ev)]
			leadID, ts = f.leadID, f.ts
		}
		out[i] = Result{Success: true, EventID: ev.in.EventID, Timestamp: ts}
		if leadID != "" {
			out[i].LeadID = &leadID
		}
	}
	return out
}

// store writes a batch in one transaction of two round trips: BEGIN with the outboxes' sizes,
// the claim of the events' ids (event_ids) and every project's lead lock and read, then the
// writes of the leads, events, facts and conversions with COMMIT. Only the events that claimed
// their ids are written; the others repeat an event and are stored nowhere. A batch holding a
// repeat reads its leads again without the repeats' identities (a third round trip, rare). It
// returns each event's answer, also written, for an event sent with an Idempotency-Key, to its
// record (Meta.Receipt) before the COMMIT. When the outboxes' bounds
// (Config.Bounds) leave room for fewer events than the batch, it rolls back and returns how
// many of its first events fit (counting the rows each event may write, fit, which a repeat does
// not write). On failure nothing is stored: a connection left inside the
// transaction is closed by the pool on release, which rolls it back; after a refused value
// (db.Refused) the transaction is rolled back before store returns, so that the batch may be
// stored again without the event that holds it. The transaction's statements run on generic
// plans that look leads up by index (leads.GenericPlans).
func (s *Service) store(ctx context.Context, evs []*event, now time.Time) (_ []Result, _ int, err error) {
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer func() {
		if db.Refused(err) {
			err = rollBack(ctx, conn, err)
		}
		conn.Release()
	}()
	load := &pgx.Batch{}
	leads.QueueBegin(load)
	c := queueClaims(load, evs, now)
	lp := planLeads(evs, func(int) bool { return true })
	lp.queueLoad(load)
	clicks := queueOpenClicks(load, evs)
	br := conn.SendBatch(ctx, load)
	sizes, err := leads.ReadBegin(br)
	if err == nil {
		err = c.read(br)
	}
	if err == nil {
		err = lp.readLoad(br)
	}
	if err == nil {
		err = clicks.read(br)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, 0, err
	}
	if fit := s.fit(sizes, evs); fit < len(evs) {
		_, err := conn.Exec(ctx, "ROLLBACK")
		return nil, fit, err
	}
	stored, _ := c.firsts(evs)
	if slices.Contains(stored, false) {
		lp = planLeads(evs, func(i int) bool { return stored[i] })
		again := &pgx.Batch{}
		lp.queueLoad(again)
		if again.Len() > 0 {
			br = conn.SendBatch(ctx, again)
			err = lp.readLoad(br)
			if cerr := br.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return nil, 0, err
			}
		}
	}
	w := &pgx.Batch{}
	found := lp.resolve(w, len(evs), now)
	var keep []*event
	var kept []leads.Result
	for i, ev := range evs {
		if stored[i] {
			keep, kept = append(keep, ev), append(kept, found[i])
		}
	}
	c.queueLeads(w, evs, stored, found)
	rows := rowsOf(keep, kept)
	QueueEvents(w, rows)
	leads.QueueTouches(w, touchesOf(rows))
	factstream.QueueFacts(w, factsOf(keep, kept), now)
	factstream.QueueBiz(w, bizOf(keep, rows), now)
	journeys.QueueJourneys(w, append(journeyTouchesOf(keep, kept), clicks.claim(w, keep, kept)...), now)
	for i, ev := range keep {
		if err := queueConversions(w, ev, kept[i].LeadID, now); err != nil {
			return nil, 0, err
		}
	}
	out := answers(evs, found, c)
	for i, ev := range evs {
		if ev.meta.Receipt != nil {
			if err := ev.meta.Receipt.QueueAnswer(w, out[i]); err != nil {
				return nil, 0, err
			}
		}
	}
	w.Queue("COMMIT")
	if err := conn.SendBatch(ctx, w).Close(); err != nil {
		return nil, 0, err
	}
	for _, ev := range evs {
		if ev.meta.Receipt != nil {
			ev.meta.Receipt.Answered()
		}
	}
	return out, len(evs), nil
}

// rollBack ends the transaction on conn that PostgreSQL failed with refused, and returns refused;
// when it cannot, the error is that of the rollback (the connection is then closed on release,
// which ends the transaction too, but later than a retry would begin).
func rollBack(ctx context.Context, conn *pgxpool.Conn, refused error) error {
	if _, err := conn.Exec(ctx, "ROLLBACK"); err != nil {
		return fmt.Errorf("events: roll back a refused batch (%v): %w", refused, err)
	}
	return refused
}

// fit is how many of evs's first events the outboxes have room for: an event row each; in the
// fact outbox a business row for one that may count (its name counts, or it may create a lead)
// and a fact for an attributed one of those; in the journey outbox a touch for a marketing touch
// of a lead, one for the tracking-link click it carries, and a merge row for each lead its
// identifiers may merge (the aliases a merge re-points too are not known before the leads are
// resolved, and come on top).
func (s *Service) fit(sizes outbox.Sizes, evs []*event) int {
	facts, journeys := 0, 0
	for i, ev := range evs {
		identified := ev.in.Lead.Identified()
		if !measuresOf(ev.in.Config, identified).IsZero() {
			facts++
			if ev.attributed {
				facts++
			}
		}
		if identified {
			journeys += ev.in.Lead.MostMerges()
			if ev.touch {
				journeys++
			}
			if ev.click != nil && ev.click.touch {
				journeys++
			}
		}
		if !s.bounds.Fits(sizes, i+1, facts, journeys) {
			return i
		}
	}
	return len(evs)
}

// leadPlans are a batch's lead plans, one per project, in a fixed order so that concurrent
// batches take the projects' lead locks in the same order.
type leadPlans struct {
	projects  []string
	byProject map[string][]int // the events of each plan's upserts, in order
	plans     []*leads.Plan
}

// planLeads plans the lead upserts of the identified events that include keeps.
func planLeads(evs []*event, include func(int) bool) leadPlans {
	lp := leadPlans{byProject: map[string][]int{}}
	for i, ev := range evs {
		if include(i) && ev.in.Lead.Identified() {
			lp.byProject[ev.target.Project.ID] = append(lp.byProject[ev.target.Project.ID], i)
		}
	}
	lp.projects = slices.Sorted(maps.Keys(lp.byProject))
	for _, project := range lp.projects {
		ups := make([]leads.Upsert, len(lp.byProject[project]))
		for k, i := range lp.byProject[project] {
			ups[k] = leads.Upsert{Identity: evs[i].in.Lead, UTM: evs[i].utm}
		}
		zone := evs[lp.byProject[project][0]].target.Project.Timezone
		lp.plans = append(lp.plans, leads.NewPlan(project, zone, ups))
	}
	return lp
}

func (lp leadPlans) queueLoad(b *pgx.Batch) {
	for _, p := range lp.plans {
		p.QueueLoad(b)
	}
}

func (lp leadPlans) readLoad(br pgx.BatchResults) error {
	for _, p := range lp.plans {
		if err := p.ReadLoad(br); err != nil {
			return err
		}
	}
	return nil
}

// resolve queues the leads' writes and returns each of the n events' lead.
func (lp leadPlans) resolve(w *pgx.Batch, n int, now time.Time) []leads.Result {
	found := make([]leads.Result, n)
	for j, p := range lp.plans {
		for k, r := range p.Resolve(w, now) {
			found[lp.byProject[lp.projects[j]][k]] = r
		}
	}
	return found
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
		c := conversions.Conversion{ProjectID: ev.target.Project.ID, PixelID: px.ID, Input: in}
		if err := conversions.Queue(w, c, now); err != nil {
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
func rowsOf(evs []*event, found []leads.Result) []EventRow {
	out := make([]EventRow, len(evs))
	for i, ev := range evs {
		alpha, value := "", int64(0)
		if ev.in.Config.Alpha != nil {
			alpha = ev.in.Config.Alpha.Name
		}
		if ev.in.Value != nil {
			value = *ev.in.Value
		}
		u, a := ev.utm, ev.attr
		out[i] = EventRow{ProjectID: ev.target.Project.ID, ContainerID: ev.target.Container.ID,
			EventID: ev.in.EventID, Time: eventTime(ev), ReceivedAt: ev.received.UTC(),
			Name: ev.in.Config.Name, AlphaName: alpha, Source: ev.in.Source, LeadID: found[i].LeadID,
			NewLead: found[i].New, UTMSource: u.Source, UTMMedium: u.Medium, UTMCampaign: u.Campaign,
			UTMContent: u.Content, UTMTerm: u.Term, CampaignID: a.CampaignID, AdsetID: a.AdsetID, AdID: a.AdID,
			PageURL: ev.in.Page.URL, Referrer: ev.in.Page.Referrer, Value: value, Currency: currencyOf(ev),
			ClientIP: ev.meta.ClientIP, UserAgent: ev.meta.UserAgent, Body: string(ev.raw)}
	}
	return out
}

// factsOf is the business facts of a batch's attributed events (see measuresOf), in order.
func factsOf(evs []*event, found []leads.Result) []factstream.FactRow {
	var out []factstream.FactRow
	for i, ev := range evs {
		m := measuresOf(ev.in.Config, found[i].New)
		if !ev.attributed || m.IsZero() {
			continue
		}
		a, p := ev.attr, ev.target.Project
		out = append(out, factstream.FactRow{ProjectID: p.ID, TimeZone: p.Timezone, Time: time.Unix(*ev.in.Timestamp, 0),
			AdEntity: a, Currency: p.Currency, Values: m})
	}
	return out
}
