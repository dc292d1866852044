package credits

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/platform"
)

// credited is an order's journey credited (order_credits) or to credit, under a person ("" for
// an order without a lead).
type credited struct {
	person string
	ZonedJourney
}

// projectRun is one project's part of a batch.
type projectRun struct {
	project          string
	people, rowsRead int
	changes          []Change
	write            map[string]*credited // order_credits rows to set (nil: to delete), by order
}

// project credits again the orders of the people and lead-less orders marked in one project.
func (w *Worker) project(ctx context.Context, tx pgx.Tx, project string, marks []Mark) (*projectRun, error) {
	run := &projectRun{project: project, write: map[string]*credited{}}
	zone, err := platform.ProjectTimezone(ctx, tx, project)
	if err != nil || zone == "" { // a project gone has nothing left to credit
		return run, err
	}
	var leads []string
	leadless := map[string]map[time.Time]bool{} // order -> the times to read it at
	for _, m := range marks {
		if m.Lead != "" {
			leads = append(leads, m.Lead)
		} else {
			if leadless[m.Order] == nil {
				leadless[m.Order] = map[time.Time]bool{}
			}
			leadless[m.Order][m.OrderTime.UTC()] = true
		}
	}
	personOf, err := people(ctx, tx, project, leads)
	if err != nil {
		return nil, err
	}
	// Orders credited before under these people (under any of their leads, which were people
	// before a merge) or as these lead-less orders: those not found now are taken back.
	old, err := readCredited(ctx, tx, project, slices.Collect(maps.Keys(personOf)), slices.Collect(maps.Keys(leadless)))
	if err != nil {
		return nil, err
	}
	mine := func(c *credited, order string) bool {
		if c.person == "" {
			return leadless[order] != nil
		}
		_, ok := personOf[c.person]
		return ok
	}
	// A lead-less order is read where it was credited too: a change of its time lands in two marks.
	for order, ts := range leadless {
		if c := old[order]; c != nil && c.person == "" {
			ts[c.Journey.Time.UTC().Truncate(time.Second)] = true
		}
	}
	j, err := readJourneys(ctx, w.ch, project, personOf, leadless)
	if err != nil {
		return nil, err
	}
	run.rowsRead = j.rows
	current := j.current(zone)
	run.people = len(distinct(personOf))
	// Orders found now but credited under another person before.
	var elsewhere []string
	for order := range current {
		if _, ok := old[order]; !ok {
			elsewhere = append(elsewhere, order)
		}
	}
	more, err := readCredited(ctx, tx, project, nil, elsewhere)
	if err != nil {
		return nil, err
	}
	maps.Copy(old, more)
	orders := slices.Collect(maps.Keys(current))
	for order, c := range old {
		if mine(c, order) && current[order] == nil {
			orders = append(orders, order)
		}
	}
	slices.Sort(orders)
	for _, order := range orders {
		run.diff(order, old[order], current[order])
	}
	return run, nil
}

// diff records what crediting order again takes: from was credited (nil: nothing), to is its
// current journey (nil: it no longer counts).
func (run *projectRun) diff(order string, from, to *credited) {
	switch {
	case to == nil:
		run.write[order] = nil
		run.changes = append(run.changes, Change{ProjectID: run.project, Old: &from.ZonedJourney})
	case from == nil:
		run.write[order] = to
		run.changes = append(run.changes, Change{ProjectID: run.project, New: &to.ZonedJourney})
	case from.Zone == to.Zone && sameJourney(from.Journey, to.Journey):
		if from.person != to.person { // the same credits, now kept under the person found
			run.write[order] = to
		}
	default:
		run.write[order] = to
		run.changes = append(run.changes, Change{ProjectID: run.project, Old: &from.ZonedJourney,
			New: &to.ZonedJourney})
	}
}

// queueState queues the writes of order_credits.
func (run *projectRun) queueState(b *pgx.Batch) error {
	var gone, orders, people, zones []string
	var journeys [][]byte
	for _, order := range slices.Sorted(maps.Keys(run.write)) {
		c := run.write[order]
		if c == nil {
			gone = append(gone, order)
			continue
		}
		raw, err := json.Marshal(c.Journey)
		if err != nil {
			return fmt.Errorf("credits: journey of %s: %w", order, err)
		}
		orders, people, zones, journeys = append(orders, order), append(people, c.person), append(zones, c.Zone), append(journeys, raw)
	}
	if len(gone) > 0 {
		b.Queue("DELETE FROM order_credits WHERE project_id = $1 AND order_id = ANY($2)", run.project, gone)
	}
	if len(orders) > 0 {
		b.Queue(`INSERT INTO order_credits (project_id, order_id, person, zone, journey)
			SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::jsonb[])
			ON CONFLICT (project_id, order_id) DO UPDATE SET person = EXCLUDED.person, zone = EXCLUDED.zone, journey = EXCLUDED.journey`,
			run.project, orders, people, zones, journeys)
	}
	return nil
}

// readCredited reads order_credits of the orders credited under people or named by orders.
func readCredited(ctx context.Context, tx pgx.Tx, project string, people, orders []string) (map[string]*credited, error) {
	out := map[string]*credited{}
	if len(people) == 0 && len(orders) == 0 {
		return out, nil
	}
	rows, err := tx.Query(ctx, `SELECT order_id, person, zone, journey FROM order_credits
		WHERE project_id = $1 AND (person = ANY($2) OR order_id = ANY($3))`, project, people, orders)
	if err != nil {
		return nil, fmt.Errorf("read order_credits: %w", err)
	}
	var order string
	var raw []byte
	c := &credited{}
	if _, err := pgx.ForEachRow(rows, []any{&order, &c.person, &c.Zone, &raw}, func() error {
		got := *c
		if err := json.Unmarshal(raw, &got.Journey); err != nil {
			return fmt.Errorf("order %s: %w", order, err)
		}
		out[order] = &got
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read order_credits: %w", err)
	}
	return out, nil
}

// current are the orders found, each with its journey in zone: its one part that does not sum to
// zero (the latest, should a change be half landed) with its person's touches that a window
// before it holds.
func (j *journeys) current(zone string) map[string]*credited {
	out := map[string]*credited{}
	for _, person := range slices.Sorted(maps.Keys(j.orders)) {
		for order, parts := range j.orders[person] {
			var at *part
			for p, v := range parts {
				if !v.IsZero() && (at == nil || p.at.After(at.at) || p.at.Equal(at.at) && p.currency > at.currency) {
					at = &p
				}
			}
			// An order under two people at once (half landed) stays with the first found.
			if at == nil || out[order] != nil {
				continue
			}
			oj := facts.OrderJourney{Time: at.at, Currency: at.currency, Values: parts[*at], Touches: window(j.touches[person], at.at)}
			out[order] = &credited{person: person, ZonedJourney: ZonedJourney{Zone: zone, Journey: oj}}
		}
	}
	return out
}

// distinct are the people of personOf.
func distinct(personOf map[string]string) map[string]bool {
	out := map[string]bool{}
	for _, p := range personOf {
		out[p] = true
	}
	return out
}

// window are the touches that some window of an order at t holds, in a stable order.
func window(touches []facts.Touch, t time.Time) []facts.Touch {
	var out []facts.Touch
	for _, tc := range touches {
		if age := t.Sub(tc.Time); age >= 0 && age <= facts.MaxWindowDays*24*time.Hour {
			out = append(out, tc)
		}
	}
	slices.SortFunc(out, compareTouches)
	return out
}

func compareTouches(a, b facts.Touch) int {
	x, y := a.Entity, b.Entity
	return cmp.Or(a.Time.Compare(b.Time), cmp.Compare(x.Source, y.Source), cmp.Compare(x.ConnectionID, y.ConnectionID),
		cmp.Compare(x.AccountID, y.AccountID), cmp.Compare(x.CampaignID, y.CampaignID), cmp.Compare(x.AdsetID, y.AdsetID),
		cmp.Compare(x.AdID, y.AdID))
}

// sameJourney reports whether a and b credit alike: the same touches with the same dimensions too
// (a touch stored before them gains them from the journeys backfill: its order's stored journey
// must then say so).
func sameJourney(a, b facts.OrderJourney) bool {
	return a.Time.Equal(b.Time) && a.Currency == b.Currency && a.Values == b.Values &&
		slices.EqualFunc(a.Touches, b.Touches, func(x, y facts.Touch) bool { return compareTouches(x, y) == 0 && x.Dims == y.Dims })
}
