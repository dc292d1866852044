// Package orders takes order webhooks (POST /v2/tracking/generic?k=<key>): it upserts the
// transaction in PostgreSQL, last writer wins by updated_at, and in the same transaction queues
// the change's facts (its previous contribution negated, its new one) in the fact outbox and, on
// its first approved state, a Purchase conversion for the project's pixels.
//
// Concurrent webhooks for one transaction are serialised by the row lock (SELECT ... FOR UPDATE;
// the first insert races through INSERT ... ON CONFLICT DO NOTHING and re-reads). An updated_at
// not newer than the stored one changes nothing, so the stored row always holds the newest
// state whatever the arrival order, and the facts always sum to it.
//
// Linking: the order's lead is the lead whose id is in sck or src, else the one with the
// customer's e-mail, else phone, else document. Its UTM is transaction.utm, else the latest UTM
// its lead's person carried at or before the order's created_at (leads.UTMAt); attribution then follows the same rules as events. An unattributed order writes
// no facts. A later webhook of the transaction keeps its attribution and lead unless it says
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

	// connections own the webhook keys, projects the currency, containers the pixels.
	connections *platform.Connections
	projects    *platform.Projects
	containers  *platform.Containers
}

// New returns a Service; a webhook whose rows would pass the fact or the journey outbox's bound
// (zero: outbox.DefaultMaxRows) is refused with 503 and Retry-After, and nothing of it is stored.
func New(pool *pgxpool.Pool, connections *platform.Connections, projects *platform.Projects, containers *platform.Containers,
	resolver *attribution.Resolver, clk clock.Clock, bounds outbox.Bounds) *Service {
	return &Service{pool: pool, resolver: resolver, clock: clk, bounds: bounds.WithDefaults(),
		connections: connections, projects: projects, containers: containers}
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
	p, err := s.projects.Project(ctx, conn.ProjectID)
	if err != nil {
		return err
	}
	o, err := validate(in, p.Currency)
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
	leadRef := o.Sck
	if leadRef == "" {
		leadRef = o.Src
	}
	params := utm.Extract(o.UTM, "", nil)
	explicitUTM := !params.IsZero()
	var ap approval
	if o.Status == StatusApproved {
		if ap, err = s.approval(ctx, p.ID, conn.TrackingEnabled); err != nil {
			return err
		}
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		ol := leads.NewOrderLead(p.ID, p.Timezone, leadRef, leads.Identity{Email: o.Customer.Email,
			Phone: o.Customer.Phone, Document: o.Customer.Document, Name: o.Customer.Name})
		load := &pgx.Batch{}
		ol.QueueLoad(load)
		if load.Len() > 0 {
			br := tx.SendBatch(ctx, load)
			err := ol.ReadLoad(br)
			if cerr := br.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		}
		w := &pgx.Batch{}
		lead := ol.Resolve(w, s.clock.Now())
		if w.Len() > 0 {
			if err := tx.SendBatch(ctx, w).Close(); err != nil {
				return err
			}
		}
		params := params
		if !explicitUTM && lead.ID != "" && !lead.New {
			// Reported attribution never looks past the order: a touch made after it (an event
			// that arrived before a late webhook) is not its source.
			var err error
			if params, err = leads.UTMAt(ctx, tx, p.ID, lead.ID, o.created, lead.UTM); err != nil {
				return err
			}
		}
		o := o
		o.UTM = params
		attr, attributed, err := s.resolver.Resolve(ctx, p.ID, params)
		if err != nil {
			return err
		}
		st := stored{order: o, attr: attr, attributed: attributed, leadID: lead.ID, explicitUTM: explicitUTM,
			namesCustomer: leadRef != "" || o.Customer != (Customer{}), business: true}
		return s.apply(ctx, tx, conn, p, st, ap)
	})
}

// approval is what an order's first approval sends: the Purchase conversion to pixels (when the
// connection forwards purchases) and the firings of the project's checkout triggers.
type approval struct {
	pixels   []string
	triggers []platform.ServerTrigger
}

// approval reads what a first approval in the project sends.
func (s *Service) approval(ctx context.Context, projectID string, forward bool) (approval, error) {
	var ap approval
	var err error
	if forward {
		if ap.pixels, err = s.pixels(ctx, projectID); err != nil {
			return ap, err
		}
	}
	ap.triggers, err = s.containers.ProjectServerTriggers(ctx, projectID, platform.TriggerCheckoutApproved)
	return ap, err
}

// pixels lists the first network's pixels linked to the project's live containers, once each.
func (s *Service) pixels(ctx context.Context, projectID string) ([]string, error) {
	ctrs, err := s.containers.ListContainers(ctx, projectID)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, c := range ctrs {
		for _, px := range c.LinkedPixels {
			if px.Source == platform.KindAlpha && !seen[px.ID] {
				seen[px.ID] = true
				out = append(out, px.ID)
			}
		}
	}
	return out, nil
}

// errRetry means the first insert of a transaction lost a race: read again.
var errRetry = errors.New("orders: inserted concurrently")

const upsertAttempts = 3

func (s *Service) apply(ctx context.Context, tx pgx.Tx, conn platform.WebhookConnection, p platform.Project, st stored, ap approval) error {
	now := s.clock.Now()
	for range upsertAttempts {
		prev, found, err := lockOrder(ctx, tx, conn.ID, st.ID)
		if err != nil {
			return err
		}
		if found {
			if !st.updated.After(prev.updated) {
				// Not newer than what is stored: nothing changes, but an approval arriving after a
				// later state (a refund before its sale) is still the order's first.
				return lateApproval(ctx, tx, conn, p, prev, st.keeping(prev), ap, now)
			}
			st = st.keeping(prev)
		}
		// The touch is read once for the order's lead and time, and kept while they stay. While it
		// is not known (the touch backfill), the business rows wait for the business backfill.
		if found && prev.business && prev.leadID == st.leadID && prev.created.Equal(st.created) {
			st.touch = prev.touch
		} else if st.touch, st.business, err = LeadTouch(ctx, tx, p.ID, st.leadID, st.created); err != nil {
			return err
		}
		if st.customerType, err = customerType(ctx, tx, p.ID, conn.ID, st); err != nil {
			return err
		}
		w := &pgx.Batch{}
		if !found {
			if err := insertOrder(ctx, tx, conn, st, now); errors.Is(err, errRetry) {
				continue
			} else if err != nil {
				return err
			}
		} else {
			updateOrder(w, conn, st, now)
		}
		facts, biz := factChange(p, prev, found, st), bizChange(p, prev, found, st)
		journeys, journeyChanged, err := journeyChange(ctx, tx, conn, p, prev, found, st)
		if err != nil {
			return err
		}
		if len(facts)+len(biz)+len(journeys) > 0 {
			sizes, err := outbox.ReadSizesTx(ctx, tx)
			if err != nil {
				return err
			}
			if !s.bounds.Fits(sizes, 0, len(facts)+len(biz), len(journeys)) {
				return apperr.Unavailable("Too many orders are waiting for the analytics store; retry shortly.", fullRetryAfter)
			}
			factstream.QueueFacts(w, facts, now)
			factstream.QueueBiz(w, biz, now)
		}
		if journeyChanged {
			queueJourney(w, conn, st, journeys, now)
		}
		if err := queueApproval(w, conn, p, prev, found, st, ap, now); err != nil {
			return err
		}
		if w.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, w).Close()
	}
	return errRetry
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
	// touch, customerType and business are the order's business keys and whether its business
	// rows were written (see business.go).
	touch        traffic.Touch
	customerType string
	business     bool
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
