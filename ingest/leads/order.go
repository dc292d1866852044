package leads

import (
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/ids"
	"mtk/platform/utm"
)

// Lead is the lead an order names: its id (a root), its latest UTM, and whether the order's
// webhook created it.
type Lead struct {
	ID  string
	UTM utm.Params
	New bool
}

// OrderLead is the lead of an order, found or created in the order's transaction as an event's
// identity is (a Plan of one upsert: the same normalisation, lock, merges and aliases), so that
// an order naming a customer always has a lead, which the customer's later events join. A lead
// id the order names (sck or src with the lead_ prefix) wins when it is a lead of the project;
// an order naming no identifier and no such lead has none.
//
// Its first read goes out with the caller's first batch (QueueLoad, ReadLoad) without the
// project's lead lock: most orders name a customer whose lead exists and holds what they say,
// and such an order writes no lead and takes no lock, so that a project's orders are not applied
// one at a time. When the lead must be written (created, merged, given a new identifier or
// name), Resolve says so, and the caller loads again (QueueLoad, ReadLoad: now under the lock,
// as events write leads) and resolves again; the writes go out with the caller's last batch.
type OrderLead struct {
	project, zone, ref string
	plan               *Plan
	byRef              Lead
	refFound, relocked bool
}

// NewOrderLead looks up the lead named by leadRef or id within project (time zone zone).
func NewOrderLead(project, zone, leadRef string, id Identity) *OrderLead {
	o := &OrderLead{project: project, zone: zone, plan: NewPlan(project, zone, []Upsert{{Identity: id}})}
	if strings.HasPrefix(leadRef, ids.Lead+"_") {
		o.ref = leadRef
	}
	return o
}

// QueueLoad queues the reads of the lead (nothing without a lead id or identifier): the first
// time without the lead lock, after Resolve asked for it with it.
func (o *OrderLead) QueueLoad(b *pgx.Batch) {
	if o.plan.st != nil { // read before: Resolve asked for the lock
		o.plan, o.relocked = NewPlan(o.project, o.zone, o.plan.ups), true
		o.plan.QueueLoad(b)
		return
	}
	o.plan.queueRead(b)
	if o.ref != "" {
		b.Queue(`SELECT r.id, r.utm_source, r.utm_medium, r.utm_campaign, r.utm_content, r.utm_term
			FROM leads l JOIN leads r ON r.id = coalesce(l.merged_into, l.id)
			WHERE l.project_id = $1 AND l.id = $2`, o.project, o.ref)
	}
}

// ReadLoad reads the answers of what QueueLoad queued, from br.
func (o *OrderLead) ReadLoad(br pgx.BatchResults) error {
	if err := o.plan.ReadLoad(br); err != nil {
		return err
	}
	if o.ref == "" || o.relocked {
		return nil
	}
	u := &o.byRef.UTM
	err := br.QueryRow().Scan(&o.byRef.ID, &u.Source, &u.Medium, &u.Campaign, &u.Content, &u.Term)
	if err == pgx.ErrNoRows {
		return nil
	}
	if err != nil {
		return fmt.Errorf("leads: the order's lead: %w", err)
	}
	o.refFound = true
	return nil
}

// Resolve is the order's lead (zero ID: none), after ReadLoad: the named lead, else the
// identity's, found, merged or created, its writes queued on w. false means that the lead must
// be written and was read without the lock: load again (QueueLoad, ReadLoad) and resolve again.
func (o *OrderLead) Resolve(w *pgx.Batch, now time.Time) (Lead, bool) {
	if o.refFound {
		return o.byRef, true
	}
	if !o.plan.locked {
		scratch := &pgx.Batch{}
		r := o.plan.Resolve(scratch, now)[0]
		if scratch.Len() > 0 {
			return Lead{}, false
		}
		return o.lead(r), true
	}
	return o.lead(o.plan.Resolve(w, now)[0]), true
}

func (o *OrderLead) lead(r Result) Lead {
	if r.LeadID == "" {
		return Lead{}
	}
	return Lead{ID: r.LeadID, UTM: o.plan.latestUTM(r.LeadID), New: r.New}
}

// MostMerges is the most leads the lookup may merge (each a row in the journey outbox).
func (o *OrderLead) MostMerges() int { return o.plan.ups[0].Identity.MostMerges() }
