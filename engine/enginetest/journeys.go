package enginetest

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/facts"
)

// Kinds of a JourneyRow, as the journeys tables name them.
const (
	KindTouch = "touch"
	KindOrder = "order"
	KindMerge = "merge"
)

// JourneyRow is one row of a project's journeys as the journey outbox writes them: a touch of
// Lead on Entity, an order row of Lead (signed Values: a refund or a move to another lead is a
// row that takes the earlier one back), or the merge of Lead into MergedInto.
type JourneyRow struct {
	Kind       string
	Time       time.Time
	Lead       string
	MergedInto string
	Order      string
	Entity     facts.AdEntity
	// Dims are a touch's traffic dimensions (a touch with no Entity is a marketing touch that is
	// no ad: an e-mail, a WhatsApp message, an organic referrer).
	Dims     facts.TouchDims
	Currency string
	Values   facts.Values // of facts.CreditsFamily.Measures
}

// OrderJourneys are the orders of rows as the credit worker credits them: per person (a lead's
// latest merge target, else the lead) and order, the order's values summed (orders whose values
// sum to nothing are left out), with the person's touches up to facts.MaxWindowDays before it.
// An order without a lead has no touch.
func OrderJourneys(rows []JourneyRow) []facts.OrderJourney {
	type merge struct {
		at   time.Time
		into string
	}
	merged := map[string]merge{}
	for _, r := range rows {
		if m, ok := merged[r.Lead]; r.Kind == KindMerge && (!ok || !r.Time.Before(m.at)) {
			merged[r.Lead] = merge{r.Time, r.MergedInto}
		}
	}
	person := func(lead string) string {
		if m, ok := merged[lead]; ok && m.into != "" {
			return m.into
		}
		return lead
	}
	type orderKey struct {
		person, order, currency string
		at                      int64
	}
	sums := map[orderKey]facts.Values{}
	var keys []orderKey
	touches := map[string][]facts.Touch{}
	for _, r := range rows {
		switch r.Kind {
		case KindTouch:
			if r.Lead != "" {
				p := person(r.Lead)
				touches[p] = append(touches[p], facts.Touch{Time: r.Time, Entity: r.Entity, Dims: r.Dims})
			}
		case KindOrder:
			k := orderKey{person(r.Lead), r.Order, r.Currency, r.Time.Unix()}
			v, ok := sums[k]
			if !ok {
				keys = append(keys, k)
			}
			sums[k] = v.Add(r.Values)
		}
	}
	// Keys in a fixed order, so that every run writes the same rows.
	slices.SortFunc(keys, func(a, b orderKey) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.person, b.person), cmp.Compare(a.order, b.order),
			cmp.Compare(a.currency, b.currency))
	})
	var out []facts.OrderJourney
	for _, k := range keys {
		if sums[k].IsZero() {
			continue
		}
		o := facts.OrderJourney{Time: time.Unix(k.at, 0).UTC(), Currency: k.currency, Values: sums[k]}
		if k.person != "" {
			for _, t := range touches[k.person] {
				if age := o.Time.Sub(t.Time); age >= 0 && age <= facts.MaxWindowDays*24*time.Hour {
					o.Touches = append(o.Touches, t)
				}
			}
		}
		out = append(out, o)
	}
	return out
}

// InsertJourneyCredits writes the credits of orders (facts.Credits) into credits_raw for
// project in zone loc, as the credit drainer does, in inserts of about BatchSize rows.
func InsertJourneyCredits(ctx context.Context, conn driver.Conn, project string, loc *time.Location, orders []facts.OrderJourney) error {
	var batch []facts.CreditBatch
	n := 0
	for i, o := range orders {
		cs := facts.Credits(o)
		batch = append(batch, facts.CreditBatch{ProjectID: project, Zone: loc, Credits: cs})
		if n += len(cs); n >= BatchSize || i == len(orders)-1 {
			if err := facts.InsertCredits(ctx, conn, batch); err != nil {
				return err
			}
			batch, n = batch[:0], 0
		}
	}
	return nil
}
