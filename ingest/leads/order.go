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
// Its reads go out with the caller's first batch (QueueLoad, ReadLoad) and its writes with the
// caller's last (Resolve): no round trip of its own.
type OrderLead struct {
	project, ref string
	plan         *Plan
	byRef        Lead
	refFound     bool
}

// NewOrderLead looks up the lead named by leadRef or id within project (time zone zone).
func NewOrderLead(project, zone, leadRef string, id Identity) *OrderLead {
	o := &OrderLead{project: project, plan: NewPlan(project, zone, []Upsert{{Identity: id}})}
	if strings.HasPrefix(leadRef, ids.Lead+"_") {
		o.ref = leadRef
	}
	return o
}

// QueueLoad queues the project's lead lock and the reads of the lead (nothing without a lead id
// or identifier).
func (o *OrderLead) QueueLoad(b *pgx.Batch) {
	o.plan.QueueLoad(b)
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
	if o.ref == "" {
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
// identity's, found, merged or created, its writes queued on w.
func (o *OrderLead) Resolve(w *pgx.Batch, now time.Time) Lead {
	if o.refFound {
		return o.byRef
	}
	r := o.plan.Resolve(w, now)[0]
	if r.LeadID == "" {
		return Lead{}
	}
	return Lead{ID: r.LeadID, UTM: o.plan.latestUTM(r.LeadID), New: r.New}
}

// MostMerges is the most leads the lookup may merge (each a row in the journey outbox).
func (o *OrderLead) MostMerges() int { return o.plan.ups[0].Identity.MostMerges() }
