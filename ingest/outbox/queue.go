package outbox

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/capi"
)

// FactRow is one signed fact for facts_raw: an attributed event's business fact, an order's
// contribution to its attributed entity, or its negation. Values holds business measures only
// (facts.Business), money in micros of Currency, as in facts_raw.
type FactRow struct {
	ProjectID, TimeZone string
	Time                time.Time
	facts.AdEntity
	Currency string
	Values   facts.Values
}

// Negate returns f with every measure's sign flipped.
func (f FactRow) Negate() FactRow {
	f.Values = f.Values.Neg()
	return f
}

// factTextColumns are fact_outbox's text columns, in the order of FactRow.text.
var factTextColumns = []string{"project_id", "timezone", "source", "connection_id", "account_id", "campaign_id",
	"adset_id", "ad_id", "currency"}

func (f *FactRow) text() []string {
	return []string{f.ProjectID, f.TimeZone, f.Source, f.ConnectionID, f.AccountID, f.CampaignID, f.AdsetID, f.AdID,
		f.Currency}
}

// insertFactsSQL inserts rows given as one array per column (the text columns, ts, then each
// business measure) and created_at last; rows take ids in the order given (WITH ORDINALITY).
var insertFactsSQL = insertFactOutboxSQL(factTextColumns, strings.Split(facts.Columns(facts.Business, ""), ", "))

// insertFactOutboxSQL inserts into fact_outbox rows given as one array per column: the text
// columns, ts, then the bigint measures, with created_at last; rows take ids in the order given
// (WITH ORDINALITY), so that a drain applies them in that order.
func insertFactOutboxSQL(text, measures []string) string {
	cols := append(append(slices.Clone(text), "ts"), measures...)
	arrays := make([]string, len(cols))
	for i := range cols {
		typ := "bigint[]"
		switch {
		case i < len(text):
			typ = "text[]"
		case i == len(text):
			typ = "timestamptz[]"
		}
		arrays[i] = fmt.Sprintf("$%d::%s", i+1, typ)
	}
	list := strings.Join(cols, ", ")
	return fmt.Sprintf(`INSERT INTO fact_outbox (%s, created_at)
		SELECT %s, $%d::timestamptz FROM unnest(%s) WITH ORDINALITY AS u (%s, ord) ORDER BY ord`,
		list, list, len(cols)+1, strings.Join(arrays, ", "), list)
}

// QueueFacts queues fs on w as one statement (however many rows), and the growth of the outbox's
// size, to be written in the caller's transaction. Nothing is queued for no rows.
func QueueFacts(w *pgx.Batch, fs []FactRow, now time.Time) {
	if len(fs) == 0 {
		return
	}
	n := len(fs)
	text := make([][]string, len(factTextColumns))
	for i := range text {
		text[i] = make([]string, n)
	}
	ts := make([]time.Time, n)
	num := make([][]int64, len(facts.Business))
	for i := range num {
		num[i] = make([]int64, n)
	}
	for j := range fs {
		for i, v := range fs[j].text() {
			text[i][j] = v
		}
		ts[j] = fs[j].Time
		for i, m := range facts.Business {
			num[i][j] = fs[j].Values[m]
		}
	}
	queueFactOutbox(w, insertFactsSQL, text, ts, num, now)
}

// queueFactOutbox queues the insert sql (from insertFactOutboxSQL) of the rows given as columns,
// and the fact outbox's growth by their number.
func queueFactOutbox(w *pgx.Batch, sql string, text [][]string, ts []time.Time, num [][]int64, now time.Time) {
	args := make([]any, 0, len(text)+1+len(num)+1)
	for _, a := range text {
		args = append(args, a)
	}
	args = append(args, ts)
	for _, a := range num {
		args = append(args, a)
	}
	w.Queue(sql, append(args, now)...)
	queueResize(w, "fact_outbox", len(ts))
}

// Conversion is one event for one pixel.
type Conversion struct {
	ProjectID string
	PixelID   string
	Input     capi.Input
}

// QueueConversion queues c on w, once per (pixel, event name, event id): a repeat changes
// nothing. An input the API would refuse (invalid, or older than MaxAge) is queued dead with the
// reason.
func QueueConversion(w *pgx.Batch, c Conversion, now time.Time) error {
	ev, err := capi.NewEvent(c.Input)
	status, reason := StatusPending, ""
	switch {
	case err != nil:
		status, reason = StatusDead, err.Error()
		ev = capi.Event{EventName: c.Input.EventName, EventTime: c.Input.EventTime.Unix(), EventID: c.Input.EventID}
	case c.Input.EventTime.Before(now.Add(-MaxAge)):
		status, reason = StatusDead, tooOld
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	w.Queue(`INSERT INTO conversion_outbox (project_id, pixel_id, event_name, event_id, event_time, payload, status,
		next_attempt_at, last_error, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8)
		ON CONFLICT (pixel_id, event_name, event_id) DO NOTHING`,
		c.ProjectID, c.PixelID, ev.EventName, ev.EventID, c.Input.EventTime, payload, status, now, reason)
	return nil
}

// The statuses of a conversion.
const (
	StatusPending = "pending"
	StatusSent    = "sent"
	StatusDead    = "dead"
)
