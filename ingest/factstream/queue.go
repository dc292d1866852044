// Package factstream is the fact outbox's stream: the signed rows of facts_raw (FactRow: an
// attributed event's business fact, an order's contribution to its ad entity) and of
// business_raw (BizRow: every counting event, every order and its items), queued in fact_outbox
// in the writer's transaction and drained by the generic outbox.Drainer (Stream), each row to the
// table its kind names.
package factstream

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/ingest/outbox"
)

// factOutbox is the stream's outbox table.
const factOutbox = "fact_outbox"

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
	outbox.QueueResize(w, factOutbox, len(ts))
}

// BizRow is one signed row for business_raw (facts.BizFact) of a project in zone TimeZone: an
// event's, an order's or an order item's, or a negation. It travels through the fact outbox,
// where its non-empty kind tells it from a facts_raw row (FactRow).
type BizRow struct {
	TimeZone string
	facts.BizFact
}

// Negate returns r with every measure's sign flipped.
func (r BizRow) Negate() BizRow {
	r.Values = r.Values.Neg()
	return r
}

// insertBizSQL inserts business rows into fact_outbox given as one array per column (project and
// zone, the keys, ts, then each business measure) and created_at last; rows take ids in the order
// given.
var insertBizSQL = insertFactOutboxSQL(append([]string{"project_id", "timezone"}, facts.BizKeyColumns...),
	facts.ColumnNames(facts.BusinessFamily.Measures))

// QueueBiz queues rs on w as one statement, and the growth of the fact outbox's size, to be
// written in the caller's transaction. Nothing is queued for no rows.
func QueueBiz(w *pgx.Batch, rs []BizRow, now time.Time) {
	if len(rs) == 0 {
		return
	}
	n := len(rs)
	text := make([][]string, 2+len(facts.BizKeyColumns))
	for i := range text {
		text[i] = make([]string, n)
	}
	ts := make([]time.Time, n)
	num := make([][]int64, len(facts.BusinessFamily.Measures))
	for i := range num {
		num[i] = make([]int64, n)
	}
	for j := range rs {
		r := &rs[j]
		text[0][j], text[1][j] = r.ProjectID, r.TimeZone
		for i, v := range r.BizKeys.List() {
			text[2+i][j] = v
		}
		ts[j] = r.Time
		for i, m := range facts.BusinessFamily.Measures {
			num[i][j] = r.Values[m]
		}
	}
	queueFactOutbox(w, insertBizSQL, text, ts, num, now)
}
