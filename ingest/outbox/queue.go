package outbox

import (
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/capi"
)

// FactRow is one signed fact for facts_raw: an attributed event's business fact, an order's
// contribution to its attributed entity, or its negation. Money is in micros (1e-6 of the major unit) of Currency, as in facts_raw.
type FactRow struct {
	ProjectID, TimeZone                                        string
	Time                                                       time.Time
	Source, ConnectionID, AccountID, CampaignID, AdsetID, AdID string
	Currency                                                   string
	PageViews, Leads, InitiateCheckout                         int64
	TxRevenue, TxCount, TxCountTotal, TxCountPending           int64
	TxCountRefunded, TxProductCosts                            int64
}

// Negate returns f with every measure's sign flipped.
func (f FactRow) Negate() FactRow {
	f.PageViews, f.Leads, f.InitiateCheckout = -f.PageViews, -f.Leads, -f.InitiateCheckout
	f.TxRevenue, f.TxCount, f.TxCountTotal = -f.TxRevenue, -f.TxCount, -f.TxCountTotal
	f.TxCountPending, f.TxCountRefunded, f.TxProductCosts = -f.TxCountPending, -f.TxCountRefunded, -f.TxProductCosts
	return f
}

// QueueFacts queues fs on w as one statement (however many rows), and the growth of the outbox's
// size, to be written in the caller's transaction. Nothing is queued for no rows.
func QueueFacts(w *pgx.Batch, fs []FactRow, now time.Time) {
	if len(fs) == 0 {
		return
	}
	n := len(fs)
	text := make([][]string, 9)
	for i := range text {
		text[i] = make([]string, n)
	}
	num := make([][]int64, 9)
	for i := range num {
		num[i] = make([]int64, n)
	}
	ts := make([]time.Time, n)
	for j, f := range fs {
		for i, v := range []string{f.ProjectID, f.TimeZone, f.Source, f.ConnectionID, f.AccountID, f.CampaignID,
			f.AdsetID, f.AdID, f.Currency} {
			text[i][j] = v
		}
		ts[j] = f.Time
		for i, v := range []int64{f.PageViews, f.Leads, f.InitiateCheckout, f.TxRevenue, f.TxCount, f.TxCountTotal,
			f.TxCountPending, f.TxCountRefunded, f.TxProductCosts} {
			num[i][j] = v
		}
	}
	// Rows take ids in the order given (WITH ORDINALITY), as one INSERT per row did.
	w.Queue(`INSERT INTO fact_outbox (project_id, timezone, source, connection_id, account_id, campaign_id,
		adset_id, ad_id, currency, ts, page_views, leads, initiate_checkout, tx_revenue, tx_count, tx_count_total,
		tx_count_pending, tx_count_refunded, tx_product_costs, created_at)
		SELECT p, z, s, c, a, cm, ads, ad, cur, t, pv, l, ic, r, n, nt, np, nr, pc, $20::timestamptz
		FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
			$8::text[], $9::text[], $10::timestamptz[], $11::bigint[], $12::bigint[], $13::bigint[], $14::bigint[],
			$15::bigint[], $16::bigint[], $17::bigint[], $18::bigint[], $19::bigint[])
			WITH ORDINALITY AS u (p, z, s, c, a, cm, ads, ad, cur, t, pv, l, ic, r, n, nt, np, nr, pc, ord)
		ORDER BY ord`,
		text[0], text[1], text[2], text[3], text[4], text[5], text[6], text[7], text[8], ts,
		num[0], num[1], num[2], num[3], num[4], num[5], num[6], num[7], num[8], now)
	queueResize(w, "fact_outbox", n)
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
