package orders

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"mtk/ingest/factstream"
	"mtk/ingest/leads"
	"mtk/platform"
)

// lockOrder reads and locks a stored transaction; false when there is none.
func lockOrder(ctx context.Context, q leads.Querier, connectionID, id string) (stored, bool, error) {
	return scanOrder(q.QueryRow(ctx, lockOrderSQL, connectionID, id), id)
}

// queueLockOrder queues lockOrder on b: prev and found are set when b's results are closed.
func queueLockOrder(b *pgx.Batch, connectionID, id string, prev *stored, found *bool) {
	b.Queue(lockOrderSQL, connectionID, id).QueryRow(func(row pgx.Row) error {
		var err error
		*prev, *found, err = scanOrder(row, id)
		return err
	})
}

const lockOrderSQL = `SELECT ` + orderColumns + ` FROM orders WHERE connection_id = $1 AND transaction_id = $2 FOR UPDATE`

// orderColumns are the columns of a stored state, in scanOrder's order.
const orderColumns = `status, value, currency, product_cost, created_at, updated_at, attr_source,
	attr_connection_id, attr_account_id, attr_campaign_id, attr_adset_id, attr_ad_id, purchase_queued,
	utm_source, utm_medium, utm_campaign, utm_content, utm_term, coalesce(lead_id, ''), customer::text,
	items::text, commission_value, commission_currency, payment_method, customer_type, referrer_host,
	landing_path, device, business, journey, utm_own`

// scanOrder scans orderColumns of transaction id, after the destinations before (the columns
// selected before them).
func scanOrder(row pgx.Row, id string, before ...any) (stored, bool, error) {
	var st stored
	var commissionCurrency *string
	err := row.Scan(append(before, &st.Status, &st.value, &st.currency, &st.productCost, &st.created, &st.updated, &st.attr.Source,
		&st.attr.ConnectionID, &st.attr.AccountID, &st.attr.CampaignID, &st.attr.AdsetID, &st.attr.AdID,
		&st.purchaseQueued, &st.UTM.Source, &st.UTM.Medium, &st.UTM.Campaign, &st.UTM.Content, &st.UTM.Term,
		&st.leadID, &st.customerJSON, &st.itemsJ, &st.CommissionValue, &commissionCurrency, &st.PaymentMethod,
		&st.customerType, &st.touch.ReferrerHost, &st.touch.LandingPath, &st.touch.Device, &st.business, &st.journey,
		&st.ownUTM)...)
	if err == pgx.ErrNoRows {
		return st, false, nil
	}
	st.ID = id
	if commissionCurrency != nil {
		st.CommissionCurrency = *commissionCurrency
	}
	if err == nil && len(st.customerJSON) > 0 {
		err = json.Unmarshal(st.customerJSON, &st.Customer)
	}
	if err == nil && len(st.itemsJ) > 0 {
		err = json.Unmarshal(st.itemsJ, &st.Items)
	}
	st.attributed = st.attr.CampaignID != ""
	return st, err == nil, err
}

// keeping is st, a webhook's state of a stored transaction (prev), with what the webhook does
// not say taken from prev: checkouts send status updates without utm or customer. The
// attribution (ad entity and UTM) changes only with explicit utm, or when prev had none and the
// webhook's lead gives one; the lead and customer only when the webhook names a customer; the
// items (and the product cost, unless sent) and payment method only when it sends them.
func (st stored) keeping(prev stored) stored {
	if !st.explicitUTM && (prev.attributed || !st.attributed) {
		st.attr, st.attributed, st.UTM, st.ownUTM = prev.attr, prev.attributed, prev.UTM, prev.ownUTM
	}
	if !st.namesCustomer {
		st.leadID, st.Customer, st.customerJSON = prev.leadID, prev.Customer, prev.customerJSON
	}
	if st.Items == nil {
		st.Items, st.itemsJ = prev.Items, prev.itemsJ
		if st.ProductCost == nil {
			st.productCost = prev.productCost // the kept items' costs, or the cost sent before
		}
	}
	if st.PaymentMethod == "" {
		st.PaymentMethod = prev.PaymentMethod
	}
	return st
}

// customerType is st's customer type in its project: new when no other order of its lead (or of
// the leads merged into it) that was approved (approved, refunded or chargeback) comes before it
// by created_at (then connection and transaction id), returning otherwise, and empty without a
// lead.
func customerType(ctx context.Context, q leads.Querier, project, connectionID string, st stored) (string, error) {
	if st.leadID == "" {
		return "", nil
	}
	return scanCustomerType(q.QueryRow(ctx, customerTypeSQL, project, st.leadID, st.created, connectionID, st.ID))
}

// queueCustomerType queues customerType's read of st (which has a lead) on b: out is set when b's
// results are closed.
func queueCustomerType(b *pgx.Batch, project, connectionID string, st stored, out *string) {
	b.Queue(customerTypeSQL, project, st.leadID, st.created, connectionID, st.ID).QueryRow(func(row pgx.Row) error {
		var err error
		*out, err = scanCustomerType(row)
		return err
	})
}

const customerTypeSQL = `SELECT EXISTS (SELECT 1 FROM orders o
	WHERE o.project_id = $1 AND o.lead_id IN (SELECT id FROM leads WHERE id = $2 OR merged_into = $2)
	AND o.status IN ('approved', 'refunded', 'chargeback')
	AND (o.created_at, o.connection_id, o.transaction_id) < ($3, $4, $5))`

func scanCustomerType(row pgx.Row) (string, error) {
	var returning bool
	if err := row.Scan(&returning); err != nil {
		return "", fmt.Errorf("orders: customer type: %w", err)
	}
	if returning {
		return "returning", nil
	}
	return "new", nil
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// queueInsertOrder queues storing a new transaction: the insert fails (orders_pkey, see
// errInsertedConcurrently) when another call inserted it first.
func queueInsertOrder(w *pgx.Batch, conn platform.WebhookConnection, st stored, now time.Time) {
	w.Queue(`INSERT INTO orders (connection_id, transaction_id, project_id, status, value, currency,
		commission_value, commission_currency, product_cost, customer, items, utm_source, utm_medium, utm_campaign,
		utm_content, utm_term, src, sck, lead_id, attr_source, attr_connection_id, attr_account_id, attr_campaign_id,
		attr_adset_id, attr_ad_id, created_at, updated_at, received_at, payment_method, customer_type, referrer_host,
		landing_path, device, business, utm_own)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
		$23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35)`, orderArgs(conn, st, now)...)
}

// insertedConcurrently reports whether err is the insert of a transaction that another call
// inserted first.
func insertedConcurrently(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" /* unique_violation */ && pe.ConstraintName == "orders_pkey"
}

// ownerGone reports whether err is a write refused because the webhook's connection or its
// project was deleted after its key was read (the key's connection is cached, and a deletion is
// heard milliseconds after its commit): the key is then unknown.
func ownerGone(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23503" /* foreign_key_violation */ &&
		(strings.HasSuffix(pe.ConstraintName, "_connection_id_fkey") || strings.HasSuffix(pe.ConstraintName, "_project_id_fkey"))
}

// updateOrder replaces the stored state (the caller holds the row lock and checked updated_at).
func updateOrder(w *pgx.Batch, conn platform.WebhookConnection, st stored, now time.Time) {
	w.Queue(`UPDATE orders SET project_id = $3, status = $4, value = $5, currency = $6, commission_value = $7,
		commission_currency = $8, product_cost = $9, customer = $10, items = $11, utm_source = $12, utm_medium = $13,
		utm_campaign = $14, utm_content = $15, utm_term = $16, src = $17, sck = $18, lead_id = $19, attr_source = $20,
		attr_connection_id = $21, attr_account_id = $22, attr_campaign_id = $23, attr_adset_id = $24, attr_ad_id = $25,
		created_at = $26, updated_at = $27, received_at = $28, payment_method = $29, customer_type = $30,
		referrer_host = $31, landing_path = $32, device = $33, business = $34, utm_own = $35
		WHERE connection_id = $1 AND transaction_id = $2`, orderArgs(conn, st, now)...)
}

func orderArgs(conn platform.WebhookConnection, st stored, now time.Time) []any {
	attr := st.attr // zero when not attributed
	return []any{conn.ID, st.ID, conn.ProjectID, st.Status, st.value, st.currency, st.CommissionValue,
		nullable(st.CommissionCurrency), st.productCost, st.customerJSON, st.itemsJ, st.UTM.Source, st.UTM.Medium,
		st.UTM.Campaign, st.UTM.Content, st.UTM.Term, st.Src, st.Sck, nullable(st.leadID), attr.Source,
		attr.ConnectionID, attr.AccountID, attr.CampaignID, attr.AdsetID, attr.AdID, st.created, st.updated, now,
		st.PaymentMethod, st.customerType, st.touch.ReferrerHost, st.touch.LandingPath, st.touch.Device, st.business,
		st.ownUTM}
}

// factChange is the change from prev (when found) to st: prev's contribution negated and st's,
// none when they are the same.
func factChange(p platform.Project, prev stored, found bool, st stored) []factstream.FactRow {
	before, had := factstream.FactRow{}, false
	if found {
		before, had = prev.contribution(p)
	}
	after, has := st.contribution(p)
	if had && has && before == after {
		return nil
	}
	var rows []factstream.FactRow
	if had {
		rows = append(rows, before.Negate())
	}
	if has {
		rows = append(rows, after)
	}
	return rows
}
