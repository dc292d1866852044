package credits

import (
	"cmp"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
)

// Mark is one mark of credit_dirty (schema/postgres/0020_credits.sql): a lead whose
// person's orders must be credited again, or (Lead empty) one order without a lead at its time.
type Mark struct {
	Project, Lead string
	Order         string
	OrderTime     time.Time
}

// leadMarkTime is order_ts of a lead's mark: the column's default, the epoch.
var leadMarkTime = time.Unix(0, 0).UTC()

// LeadMark is the mark of a lead of project.
func LeadMark(project, lead string) Mark {
	return Mark{Project: project, Lead: lead, OrderTime: leadMarkTime}
}

// LeadlessMark is the mark of an order without a lead, at its time to the second (as
// journeys_by_lead holds it).
func LeadlessMark(project, order string, at time.Time) Mark {
	return Mark{Project: project, Order: order, OrderTime: at.UTC().Truncate(time.Second)}
}

// QueueMarks queues setting marks (distinct), in the caller's transaction: the journey stream
// sets them as its rows leave the outbox.
func QueueMarks(b *pgx.Batch, marks []Mark) {
	if len(marks) == 0 {
		return
	}
	// In key order, as the credit worker locks the marks it deletes, so that the two never
	// deadlock.
	slices.SortFunc(marks, func(a, b Mark) int {
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
