package outbox

import (
	"cmp"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// CreditMark is one mark of credit_dirty (schema/postgres/0020_credits.sql): a lead whose
// person's orders must be credited again, or (Lead empty) one order without a lead at its time.
type CreditMark struct {
	Project, Lead string
	Order         string
	OrderTime     time.Time
}

// leadMarkTime is order_ts of a lead's mark: the column's default, the epoch.
var leadMarkTime = time.Unix(0, 0).UTC()

// LeadMark is the mark of a lead of project.
func leadMark(project, lead string) CreditMark {
	return CreditMark{Project: project, Lead: lead, OrderTime: leadMarkTime}
}

// LeadlessMark is the mark of an order without a lead, at its time to the second (as
// journeys_by_lead holds it).
func leadlessMark(project, order string, at time.Time) CreditMark {
	return CreditMark{Project: project, Order: order, OrderTime: at.UTC().Truncate(time.Second)}
}

// settled marks, in the settle transaction, the leads of the rows (a merge row's lead and the
// lead it was merged into) and the orders without a lead: once the rows are in journeys_by_lead,
// the credit worker must credit their people again. A mark already set gets a new seq, so that a
// worker computing from the rows before these keeps it.
func (rs journeyRows) settled(b *pgx.Batch) {
	seen := map[CreditMark]bool{}
	var marks []CreditMark
	add := func(m CreditMark) {
		if !seen[m] {
			seen[m] = true
			marks = append(marks, m)
		}
	}
	for _, p := range rs {
		r := &p.row
		switch {
		case r.LeadID != "":
			add(leadMark(r.ProjectID, r.LeadID))
			if r.MergedInto != "" {
				add(leadMark(r.ProjectID, r.MergedInto))
			}
		case r.Kind == JourneyOrder:
			add(leadlessMark(r.ProjectID, r.OrderID, r.Time))
		}
	}
	queueCreditMarks(b, marks)
}

// queueCreditMarks queues setting marks (distinct), in the caller's transaction.
func queueCreditMarks(b *pgx.Batch, marks []CreditMark) {
	if len(marks) == 0 {
		return
	}
	// In key order, as the credit worker locks the marks it deletes, so that the two never
	// deadlock.
	slices.SortFunc(marks, func(a, b CreditMark) int {
		return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.Lead, b.Lead), cmp.Compare(a.Order, b.Order),
			a.OrderTime.Compare(b.OrderTime))
	})
	projects, leads, orders, times := make([]string, len(marks)), make([]string, len(marks)), make([]string, len(marks)),
		make([]time.Time, len(marks))
	for i, m := range marks {
		projects[i], leads[i], orders[i], times[i] = m.Project, m.Lead, m.Order, m.OrderTime
	}
	b.Queue(`INSERT INTO credit_dirty (project_id, lead_id, order_id, order_ts)
		SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[])
		ON CONFLICT (project_id, lead_id, order_id, order_ts) DO UPDATE SET seq = nextval('credit_dirty_seq')`,
		projects, leads, orders, times)
}
