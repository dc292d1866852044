// Package orders takes order webhooks (POST /v2/tracking/generic?k=<key>): it upserts the
// transaction in PostgreSQL, last writer wins by updated_at, and in the same transaction queues
// the change's facts (its previous contribution negated, its new one) in the fact outbox and, on
// its first approved state, a Purchase conversion for the project's pixels.
//
// Concurrent webhooks for one transaction are serialised by the row lock (SELECT ... FOR UPDATE;
// two first inserts race on the key, and the loser is tried again from the start). An updated_at
// not newer than the stored one changes nothing, so the stored row always holds the newest
// state whatever the arrival order, and the facts always sum to it.
//
// Linking: the order's lead is the lead whose id is in sck or src, else the lead of the
// customer's identity (e-mail, phone, document), found or created as an event's identity is
// (leads.OrderLead: the same normalisation, lock and merges), so that the customer's later events
// join it and its credits follow their touches. An order naming no identifier has no lead. Its
// UTM is transaction.utm, else the latest UTM its lead's person carried at or before the order's
// created_at (leads.QueueUTMAt); attribution then follows the same rules as events, and a
// person's late touch or merge attributes again an order whose UTM is not its own
// (reattribute.go). An unattributed order writes no facts. A later webhook of the transaction keeps its attribution and lead unless it says
// otherwise (stored.keeping): a status update without utm or customer moves the order's facts
// on its ad entity (a refund lands where the sale did); new explicit utm moves them to the new
// entity, by signed differences.
//
// Contribution of a state: the measures facts.OrderValues gives its status (failed counts
// nothing), at the order's created_at.
//
// Every order, attributed or not, also writes business rows (business.go: the order and its
// products, keyed by UTM, payment method, customer type and its lead's touch: the referrer,
// landing path and device of the lead's latest event before the order), changed the same way:
// the stored state's rows negated and the new state's.
//
// Nothing here reads ClickHouse: an order is acknowledged with PostgreSQL alone (its lead's
// touch comes from lead_touches, LeadTouch), so an order webhook holds while ClickHouse is down.
package orders

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"mtk/facts"
	"mtk/ingest/attribution"
	"mtk/ingest/factstream"
	"mtk/ingest/leads"
	"mtk/ingest/outbox"
	"mtk/ingest/traffic"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/platform"
	"mtk/platform/utm"
)

// Service takes orders.
type Service struct {
	pool     *pgxpool.Pool
	resolver *attribution.Resolver
	clock    clock.Clock
	bounds   outbox.Bounds

	// connections own the webhook keys (and give their projects).
	connections *platform.Connections
}

// New returns a Service; a webhook whose rows would pass the fact or the journey outbox's bound
// (zero: outbox.DefaultMaxRows) is refused with 503 and Retry-After, and nothing of it is stored.
func New(pool *pgxpool.Pool, connections *platform.Connections, resolver *attribution.Resolver, clk clock.Clock,
	bounds outbox.Bounds) *Service {
	return &Service{pool: pool, resolver: resolver, clock: clk, bounds: bounds.WithDefaults(), connections: connections}
}

// fullRetryAfter is the Retry-After, in seconds, of a webhook refused because an outbox is
// full: the drainers make room within seconds once ClickHouse takes rows.
const fullRetryAfter = 2

// Upsert applies one webhook call for the connection that owns webhookKey.
func (s *Service) Upsert(ctx context.Context, webhookKey string, in Input) error {
	conn, err := s.connections.ConnectionByWebhookKey(ctx, webhookKey)
	if err != nil {
		return err
	}
	o, err := validate(in, conn.Project.Currency)
	if err != nil {
		return err
	}
	if o.customerJSON, err = json.Marshal(o.Customer); err != nil {
		return err
	}
	if o.itemsJ, err = json.Marshal(o.Items); err != nil {
		return err
	}
	if o.Items == nil {
		o.itemsJ = []byte("[]")
	}
	o.UTM = utm.Extract(o.UTM, "", nil)
	entities, err := s.resolver.Entities(ctx, conn.ProjectID)
	if err != nil {
		return err
	}
	for range upsertAttempts {
		if err = s.write(ctx, conn, entities, o); ownerGone(err) {
			return platform.UnknownWebhookKey()
		} else if !errors.Is(err, errRetry) {
			return err
		}
	}
	return err
}

// errRetry means the first insert of a transaction lost a race: read again.
var errRetry = errors.New("orders: inserted concurrently")

const upsertAttempts = 3

// write stores one state of o in one transaction of at most three round trips (entities are the
// project's, read before: the transaction's connection is the only one it uses):
//  1. BEGIN, the outboxes' sizes, the lead lookup (leads.OrderLead: the rows of the customer's
//     identifiers), the stored state with its row lock and, for an approved state, what a first
//     approval sends;
//  2. for a lead that existed before this call, its UTM at the order's time, its touch and the
//     customer type; or, for a lead that must be written (a new customer, a new identifier or
//     name, a merge), the lead lookup again under the project's lead lock (a lead the call
//     creates has no UTM, no touch and a new customer);
//  3. the lead's writes, the order's, its outbox rows and COMMIT.
//
// (A lead that another call created between 1 and its lock costs both reads of 2.) Only a
// transaction that writes a lead takes the lead lock, after its row lock; one that holds the lead
// lock never waits on another order's row. The first insert of a transaction may race another's
// (neither saw a row): the loser's insert fails on the key, and it is tried again (errRetry).
func (s *Service) write(ctx context.Context, conn platform.WebhookConnection, entities attribution.Entities, o order) (err error) {
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer func() { release(ctx, c, err) }()
	p := conn.Project
	leadRef := o.Sck
	if leadRef == "" {
		leadRef = o.Src
	}
	lookup := leads.NewOrderLead(p.ID, p.Timezone, leadRef, leads.Identity{Email: o.Customer.Email,
		Phone: o.Customer.Phone, Document: o.Customer.Document, Name: o.Customer.Name})
	var prev stored
	var found bool
	var ap approval
	load := &pgx.Batch{}
	leads.QueueBegin(load)
	lookup.QueueLoad(load)
	queueLockOrder(load, conn.ID, o.ID, &prev, &found)
	if o.Status == StatusApproved {
		ap.queueReads(load, p.ID, conn.TrackingEnabled)
	}
	br := c.SendBatch(ctx, load)
	sizes, err := leads.ReadBegin(br)
	if err == nil {
		err = lookup.ReadLoad(br)
	}
	if cerr := br.Close(); err == nil { // the queued reads' own callbacks run here
		err = cerr
	}
	if err != nil {
		return err
	}

	now := s.clock.Now()
	w := &pgx.Batch{}
	lead, ok := lookup.Resolve(w, now)
	if !ok { // the lead is written: read it again under the lead lock
		if lead, err = s.lockLead(ctx, c, lookup, w, now); err != nil {
			return err
		}
	}
	st := stored{order: o, leadID: lead.ID, explicitUTM: !o.UTM.IsZero(), ownUTM: !o.UTM.IsZero(),
		namesCustomer: leadRef != "" || o.Customer != (Customer{}), business: true}
	stale := found && !st.updated.After(prev.updated)
	kept := st // what keeping will make of the lead and time
	if found {
		kept = st.keeping(prev)
	}
	reads := &pgx.Batch{}
	if !st.explicitUTM && lead.ID != "" && !lead.New {
		// Reported attribution never looks past the order: a touch made after it (an event that
		// arrived before a late webhook) is not its source.
		leads.QueueUTMAt(reads, p.ID, lead.ID, o.created, lead.UTM, &st.UTM)
	}
	// The touch is read once for the order's lead and time, and kept while they stay. While it is
	// not known (the touch backfill), the business rows wait for the business backfill.
	keepTouch := found && prev.business && prev.leadID == kept.leadID && prev.created.Equal(kept.created)
	switch {
	case stale || kept.leadID == "":
	case kept.leadID == lead.ID && lead.New:
		st.customerType = "new"
	default:
		if !keepTouch {
			queueLeadTouch(reads, p.ID, kept.leadID, kept.created, &st.touch, &st.business)
		}
		queueCustomerType(reads, p.ID, conn.ID, kept, &st.customerType)
	}
	if reads.Len() > 0 {
		if err := c.SendBatch(ctx, reads).Close(); err != nil {
			return err
		}
	}
	st.attr, st.attributed = entities.Resolve(st.UTM)
	if found {
		st = st.keeping(prev)
		if keepTouch {
			st.touch = prev.touch
		}
	}
	if stale {
		// Not newer than what is stored: nothing of the order changes, but an approval arriving
		// after a later state (a refund before its sale) is still the order's first.
		if err := queueApproval(w, conn, p, prev, true, st, ap, now); err != nil {
			return err
		}
		return commit(ctx, c, w)
	}
	if found {
		updateOrder(w, conn, st, now)
	} else {
		queueInsertOrder(w, conn, st, now)
	}
	facts, biz := factChange(p, prev, found, st), bizChange(p, prev, found, st)
	journeys, journeyChanged := journeyChange(conn, p, prev, found, st)
	if n := len(facts) + len(biz) + len(journeys) + lookup.MostMerges(); n > 0 &&
		!s.bounds.Fits(sizes, 0, len(facts)+len(biz), len(journeys)+lookup.MostMerges()) {
		return apperr.Unavailable("Too many orders are waiting for the analytics store; retry shortly.", fullRetryAfter)
	}
	factstream.QueueFacts(w, facts, now)
	factstream.QueueBiz(w, biz, now)
	if journeyChanged {
		queueJourney(w, conn, st, journeys, now)
	}
	if err := queueApproval(w, conn, p, prev, found, st, ap, now); err != nil {
		return err
	}
	if err := commit(ctx, c, w); insertedConcurrently(err) {
		return errRetry
	} else if err != nil {
		return err
	}
	return nil
}

// lockLead loads the lead of lookup again under the project's lead lock, and resolves it with
// its writes on w.
func (s *Service) lockLead(ctx context.Context, c *pgxpool.Conn, lookup *leads.OrderLead, w *pgx.Batch,
	now time.Time) (leads.Lead, error) {
	b := &pgx.Batch{}
	lookup.QueueLoad(b)
	br := c.SendBatch(ctx, b)
	err := lookup.ReadLoad(br)
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	lead, _ := lookup.Resolve(w, now)
	return lead, err
}

// commit sends w's writes with COMMIT.
func commit(ctx context.Context, c *pgxpool.Conn, w *pgx.Batch) error {
	w.Queue("COMMIT")
	return c.SendBatch(ctx, w).Close()
}

// release returns c to the pool after write, rolling back the transaction a failure left open
// when the server still answers; a connection left inside a transaction is closed by the pool,
// which ends the transaction too.
func release(ctx context.Context, c *pgxpool.Conn, err error) {
	if err != nil && ctx.Err() == nil && c.Conn().PgConn().TxStatus() != 'I' {
		c.Exec(ctx, "ROLLBACK") //nolint:errcheck // on failure the pool closes the connection
	}
	c.Release()
}

// stored is a transaction's state as the orders table holds it.
type stored struct {
	order
	attr           facts.AdEntity
	attributed     bool
	leadID         string
	purchaseQueued bool
	// explicitUTM and namesCustomer say what a webhook carried (see keeping).
	explicitUTM, namesCustomer bool
	// ownUTM says that the UTM is the order's own (a webhook's, kept since), not its person's
	// touch: only an order without one is attributed again (Reattribute).
	ownUTM bool
	// touch, customerType and business are the order's business keys and whether its business
	// rows were written (see business.go).
	touch        traffic.Touch
	customerType string
	business     bool
	// journey says that the journey outbox has the stored state's row.
	journey bool
}

// contribution is the fact a state adds, and false when it adds none.
func (st stored) contribution(p platform.Project) (factstream.FactRow, bool) {
	v, counts := facts.OrderValues(st.Status, st.value, st.productCost)
	if !st.attributed || !counts {
		return factstream.FactRow{}, false
	}
	return factstream.FactRow{ProjectID: p.ID, TimeZone: p.Timezone, Time: st.created, AdEntity: st.attr,
		Currency: st.currency, Values: v}, true
}
