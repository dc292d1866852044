package events

import (
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/outbox"
)

// eventOutbox is the event stream's outbox table.
const eventOutbox = "event_outbox"

// EventRow is one tracking event as the events table in ClickHouse keeps it; it travels
// through event_outbox (QueueEvents, QueueEventOnce) to the events table (Stream).
type EventRow struct {
	ProjectID, ContainerID, EventID                        string
	Time, ReceivedAt                                       time.Time
	Name, AlphaName, Source, LeadID                        string
	NewLead                                                bool
	UTMSource, UTMMedium, UTMCampaign, UTMContent, UTMTerm string
	CampaignID, AdsetID, AdID, PageURL, Referrer           string
	Value                                                  int64
	Currency, ClientIP, UserAgent, Body                    string
}

// eventText lists an EventRow's text columns in the order of eventTextColumns.
func (e *EventRow) eventText() [20]string {
	return [20]string{e.ProjectID, e.ContainerID, e.EventID, e.Name, e.AlphaName, e.Source, e.LeadID,
		e.UTMSource, e.UTMMedium, e.UTMCampaign, e.UTMContent, e.UTMTerm, e.CampaignID, e.AdsetID, e.AdID,
		e.PageURL, e.Referrer, e.Currency, e.ClientIP, e.UserAgent}
}

const eventTextColumns = `project_id, container_id, event_id, name, alpha_name, source, lead_id, utm_source,
	utm_medium, utm_campaign, utm_content, utm_term, campaign_id, adset_id, ad_id, page_url, referrer, currency,
	client_ip, user_agent`

// QueueEvents queues evs on w as one statement (however many rows), and the growth of the
// outbox's size, to be written in the caller's transaction, in order. Nothing is queued for no rows.
func QueueEvents(w *pgx.Batch, evs []EventRow) {
	if len(evs) == 0 {
		return
	}
	n := len(evs)
	var text [20][]string
	for i := range text {
		text[i] = make([]string, n)
	}
	ts, received := make([]time.Time, n), make([]time.Time, n)
	newLead, value, body := make([]bool, n), make([]int64, n), make([]string, n)
	for j := range evs {
		e := &evs[j]
		for i, v := range e.eventText() {
			text[i][j] = v
		}
		ts[j], received[j], newLead[j], value[j], body[j] = e.Time, e.ReceivedAt, e.NewLead, e.Value, e.Body
	}
	args := make([]any, 0, 25)
	for i := range text {
		args = append(args, text[i])
	}
	args = append(args, ts, received, newLead, value, body)
	w.Queue(`INSERT INTO event_outbox (`+eventTextColumns+`, ts, received_at, new_lead, value, body)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[],
			$16::text[], $17::text[], $18::text[], $19::text[], $20::text[], $21::timestamptz[], $22::timestamptz[],
			$23::boolean[], $24::bigint[], $25::text[])`, args...)
	outbox.QueueResize(w, eventOutbox, n)
}

// QueueEventOnce queues e on w, to be written in the caller's transaction, only if it claims its
// event name and id in its project (table event_ids, keyed as the events service claims the ids of
// the events it stores: the name is config.name, else the network's): a repeat of e, sequential or concurrent, writes nothing. The outbox's size grows by
// what was written. One statement, so that the claim, the row and the size change go together.
func QueueEventOnce(w *pgx.Batch, e EventRow, now time.Time) {
	args := make([]any, 0, 26)
	for _, v := range e.eventText() {
		args = append(args, v)
	}
	args = append(args, e.Time, e.ReceivedAt, e.NewLead, e.Value, e.Body, now)
	w.Queue(`WITH claim AS (
			INSERT INTO event_ids (project_id, event_name, event_id, lead_id, ts, created_at)
			VALUES ($1, coalesce(nullif($4, ''), $5), $3, nullif($7, ''), extract(epoch FROM $21::timestamptz)::bigint, $26)
			ON CONFLICT (project_id, event_name, event_id) DO NOTHING RETURNING 1),
		stored AS (
			INSERT INTO event_outbox (`+eventTextColumns+`, ts, received_at, new_lead, value, body)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20,
				$21::timestamptz, $22::timestamptz, $23::boolean, $24::bigint, $25 FROM claim RETURNING 1)
		INSERT INTO outbox_sizes AS s (outbox, backend, n)
		SELECT 'event_outbox', pg_backend_pid(), count(*) FROM stored HAVING count(*) > 0
		ON CONFLICT (outbox, backend) DO UPDATE SET n = s.n + EXCLUDED.n`, args...)
}
