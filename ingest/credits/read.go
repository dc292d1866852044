package credits

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/facts"
)

// part names the rows of an order at one time in one currency: an order's current state is its
// one part whose rows do not sum to zero (a change of its time or currency negates the old part).
type part struct {
	at       time.Time
	currency string
}

// journeys is what journeys_by_lead holds of some people and lead-less orders.
type journeys struct {
	touches map[string][]facts.Touch                    // by person
	orders  map[string]map[string]map[part]facts.Values // person ("" for no lead) -> order -> its parts' sums
	rows    int                                         // rows read (grouped)
}

// add adds values to a part of an order of person.
func (j *journeys) add(person, order string, p part, values facts.Values) {
	if j.orders[person] == nil {
		j.orders[person] = map[string]map[part]facts.Values{}
	}
	if j.orders[person][order] == nil {
		j.orders[person][order] = map[part]facts.Values{}
	}
	j.orders[person][order][p] = j.orders[person][order][p].Add(values)
}

// sums selects the sum of each of facts.CreditsFamily.Measures, in their order.
var sums = func() string {
	out := make([]string, len(facts.CreditsFamily.Measures))
	for i, m := range facts.CreditsFamily.Measures {
		out[i] = "toInt64(sum(" + facts.Specs[m].Column + "))"
	}
	return strings.Join(out, ", ")
}()

// touchDims selects a touch's traffic dimensions, one per facts.TouchDimColumns, in their order: the
// greatest of its rows', so that a touch stored before its dimensions (schema/clickhouse/0013) and
// written again with them by the journeys backfill reads once, with them (a touch's dimensions
// never change; its older row holds only empty strings). Order rows hold none.
var touchDims = func() string {
	out := make([]string, len(facts.TouchDimColumns))
	for i, c := range facts.TouchDimColumns {
		out[i] = "max(" + c + ")"
	}
	return strings.Join(out, ", ")
}()

// readJourneys reads the touches and orders of every lead of personOf (summed per person: an
// order moved between two leads of one person sums to its state) and the lead-less orders at the
// times given, from journeys_by_lead by its primary key.
func readJourneys(ctx context.Context, ch driver.Conn, project string, personOf map[string]string,
	leadless map[string]map[time.Time]bool) (*journeys, error) {
	j := &journeys{touches: map[string][]facts.Touch{}, orders: map[string]map[string]map[part]facts.Values{}}
	if len(personOf) > 0 {
		if err := j.readPeople(ctx, ch, project, personOf); err != nil {
			return nil, err
		}
	}
	if len(leadless) > 0 {
		if err := j.readLeadless(ctx, ch, project, leadless); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func (j *journeys) readPeople(ctx context.Context, ch driver.Conn, project string, personOf map[string]string) error {
	leads := slices.Sorted(maps.Keys(personOf))
	// A touch is one group, however many times it was written (by event_id, with its entity).
	rows, err := ch.Query(ctx, `SELECT lead_id, kind, ts, order_id, source, connection_id, account_id, campaign_id, adset_id, ad_id,
			toString(currency), `+touchDims+`, `+sums+`
		FROM journeys_by_lead WHERE project_id = ? AND lead_id IN ? AND kind IN ('touch', 'order')
		GROUP BY lead_id, kind, ts, order_id, event_id, source, connection_id, account_id, campaign_id, adset_id, ad_id, currency`,
		project, clickhouse.GroupSet{Value: anys(leads)})
	if err != nil {
		return fmt.Errorf("read journeys: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var lead, kind, order, currency string
		var at time.Time
		var e facts.AdEntity
		var d facts.TouchDims
		var v facts.Values
		dest := append(append(append([]any{&lead, &kind, &at, &order}, e.Dest()...), &currency), d.Dest()...)
		if err := rows.Scan(append(dest, v.Dest(facts.CreditsFamily.Measures)...)...); err != nil {
			return fmt.Errorf("read journeys: %w", err)
		}
		j.rows++
		// An order's parts under several leads of one person sum: moved between them, it counts once.
		if person := personOf[lead]; kind == "touch" {
			j.touches[person] = append(j.touches[person], facts.Touch{Time: at.UTC(), Entity: e, Dims: d})
		} else {
			j.add(person, order, part{at: at.UTC(), currency: currency}, v)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read journeys: %w", err)
	}
	return nil
}

// readLeadless reads the orders without a lead at their times only: the primary key leads to
// them without reading the project's other lead-less orders.
func (j *journeys) readLeadless(ctx context.Context, ch driver.Conn, project string, leadless map[string]map[time.Time]bool) error {
	orders := slices.Sorted(maps.Keys(leadless))
	seen := map[time.Time]bool{}
	var times []time.Time
	for _, ts := range leadless {
		for t := range ts {
			if !seen[t] {
				seen[t] = true
				times = append(times, t)
			}
		}
	}
	rows, err := ch.Query(ctx, `SELECT order_id, ts, toString(currency), `+sums+`
		FROM journeys_by_lead WHERE project_id = ? AND lead_id = '' AND kind = 'order' AND ts IN ? AND order_id IN ?
		GROUP BY order_id, ts, currency`, project, clickhouse.GroupSet{Value: anys(times)}, clickhouse.GroupSet{Value: anys(orders)})
	if err != nil {
		return fmt.Errorf("read lead-less orders: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var order string
		var p part
		var v facts.Values
		if err := rows.Scan(append([]any{&order, &p.at, &p.currency}, v.Dest(facts.CreditsFamily.Measures)...)...); err != nil {
			return fmt.Errorf("read lead-less orders: %w", err)
		}
		j.rows++
		if p.at = p.at.UTC(); leadless[order][p.at] { // the other pairs of the sets' product
			j.add("", order, p, v)
		}
	}
	return rows.Err()
}

// anys is xs as the values of a clickhouse.GroupSet.
func anys[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}
