package outbox

import (
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
)

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
