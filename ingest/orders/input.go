package orders

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"mtk/facts"
	"mtk/internal/apperr"
	"mtk/platform/utm"
)

// Input is the body of the order webhook.
type Input struct {
	Transaction *Transaction `json:"transaction"`
}

// Transaction is one order as the checkout sends it. Money is in cents.
type Transaction struct {
	ID                 string     `json:"id"`
	Status             string     `json:"status"`
	Value              *int64     `json:"value"`
	Currency           string     `json:"currency"`
	CommissionCurrency string     `json:"commission_currency"`
	CommissionValue    *int64     `json:"commission_value"`
	CreatedAt          string     `json:"created_at"`
	UpdatedAt          string     `json:"updated_at"`
	Customer           Customer   `json:"customer"`
	UTM                utm.Params `json:"utm"`
	Src                string     `json:"src"`
	Sck                string     `json:"sck"`
	Items              []Item     `json:"items"`
	ProductCost        *int64     `json:"product_cost"`
	PaymentMethod      string     `json:"payment_method"`
}

// Customer is who bought.
type Customer struct {
	Email    string `json:"email"`
	Phone    string `json:"phone"`
	Document string `json:"document"`
	Name     string `json:"name"`
}

// Item is one product line; Cost is the line's cost (all its units).
type Item struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Quantity  int64  `json:"quantity"`
	UnitPrice *int64 `json:"unit_price"`
	Cost      *int64 `json:"cost"`
}

// The transaction statuses of the spec (facts.OrderValues says what each counts).
const (
	StatusPending    = facts.OrderPending
	StatusApproved   = facts.OrderApproved
	StatusFailed     = facts.OrderFailed
	StatusRefunded   = facts.OrderRefunded
	StatusChargeback = facts.OrderChargeback
)

// PaymentMethods are the values of transaction.payment_method, exactly; missing (or null) is "".
var PaymentMethods = []string{"pix", "boleto", "credit_card", "debit_card", "paypal", "other"}

const (
	maxMoney = 1_000_000_000_000 // cents
	maxText  = 255               // characters of an identity, a product's id or name, src and sck
	maxItems = 1000              // lines of one order
	// maxQuantity bounds a line's units, so that an order's units sum within int64.
	maxQuantity = 1_000_000_000
)

// order is a validated transaction.
type order struct {
	Transaction
	value, productCost   int64
	created, updated     time.Time
	currency             string
	customerJSON, itemsJ []byte
}

// validate names every problem of in; currency defaults to the project's.
func validate(in Input, projectCurrency string) (order, error) {
	var bad, missing []string
	t := in.Transaction
	if t == nil {
		return order{}, apperr.Missing("Invalid transaction.", "transaction: required")
	}
	o := order{Transaction: *t}
	if o.ID = strings.TrimSpace(o.ID); o.ID == "" {
		missing = append(missing, "transaction.id: required")
	} else if utf8.RuneCountInString(o.ID) > 255 {
		bad = append(bad, "transaction.id: at most 255 characters")
	}
	switch o.Status = strings.ToLower(strings.TrimSpace(o.Status)); o.Status {
	case StatusPending, StatusApproved, StatusFailed, StatusRefunded, StatusChargeback:
	case "":
		missing = append(missing, "transaction.status: required")
	default:
		bad = append(bad, fmt.Sprintf("transaction.status: %q is not one of pending, approved, failed, refunded, chargeback", o.Status))
	}
	switch {
	case t.Value == nil:
		missing = append(missing, "transaction.value: required (cents)")
	case *t.Value < 0 || *t.Value > maxMoney:
		bad = append(bad, "transaction.value: cents, from 0 to 10^12")
	default:
		o.value = *t.Value
	}
	if t.CommissionValue != nil && (*t.CommissionValue < 0 || *t.CommissionValue > maxMoney) {
		bad = append(bad, "transaction.commission_value: cents, from 0 to 10^12")
	}
	var problem string
	if strings.TrimSpace(o.CreatedAt) == "" {
		missing = append(missing, "transaction.created_at: required (RFC 3339)")
	} else if o.created, problem = parseTime("transaction.created_at", o.CreatedAt); problem != "" {
		bad = append(bad, problem)
	}
	o.updated = o.created
	if strings.TrimSpace(o.UpdatedAt) != "" {
		if o.updated, problem = parseTime("transaction.updated_at", o.UpdatedAt); problem != "" {
			bad = append(bad, problem)
		}
	}
	o.currency = strings.ToUpper(strings.TrimSpace(o.Currency))
	if o.currency == "" {
		o.currency = projectCurrency
	} else if !currencyCode(o.currency) {
		bad = append(bad, fmt.Sprintf("transaction.currency: %q is not an ISO 4217 code", o.Currency))
	}
	if o.PaymentMethod != "" && !slices.Contains(PaymentMethods, o.PaymentMethod) {
		bad = append(bad, fmt.Sprintf("transaction.payment_method: %q is not one of %s", truncate(t.PaymentMethod, 40),
			strings.Join(PaymentMethods, ", ")))
	}
	bad = append(bad, o.UTM.Problems("transaction.utm")...)
	for member, v := range map[string]string{"customer.email": o.Customer.Email, "customer.phone": o.Customer.Phone,
		"customer.document": o.Customer.Document, "customer.name": o.Customer.Name, "src": o.Src, "sck": o.Sck} {
		if utf8.RuneCountInString(v) > maxText {
			bad = append(bad, fmt.Sprintf("transaction.%s: at most %d characters", member, maxText))
		}
	}
	if c := strings.ToUpper(strings.TrimSpace(o.CommissionCurrency)); c != "" && !currencyCode(c) {
		bad = append(bad, "transaction.commission_currency: not an ISO 4217 code such as BRL or USD")
	}
	if len(o.Items) > maxItems {
		bad = append(bad, fmt.Sprintf("transaction.items: %d lines, at most %d", len(o.Items), maxItems))
		o.Items = nil // one line says it; the lines are not examined
	}
	var costs int64
	for i, it := range o.Items {
		if utf8.RuneCountInString(it.ID) > maxText || utf8.RuneCountInString(it.Name) > maxText {
			bad = append(bad, fmt.Sprintf("transaction.items[%d]: id and name at most %d characters", i, maxText))
		}
		if strings.TrimSpace(it.ID) == "" {
			missing = append(missing, fmt.Sprintf("transaction.items[%d].id: required", i))
		}
		if it.Quantity < 1 || it.Quantity > maxQuantity {
			bad = append(bad, fmt.Sprintf("transaction.items[%d].quantity: from 1 to 10^9", i))
		}
		if it.UnitPrice != nil && (*it.UnitPrice < 0 || *it.UnitPrice > maxMoney) {
			bad = append(bad, fmt.Sprintf("transaction.items[%d].unit_price: cents, from 0 to 10^12", i))
		}
		if it.Cost != nil {
			if *it.Cost < 0 || *it.Cost > maxMoney {
				bad = append(bad, fmt.Sprintf("transaction.items[%d].cost: cents, from 0 to 10^12", i))
			} else {
				costs += *it.Cost
			}
		}
	}
	o.productCost = costs
	if t.ProductCost != nil {
		if *t.ProductCost < 0 || *t.ProductCost > maxMoney {
			bad = append(bad, "transaction.product_cost: cents, from 0 to 10^12")
		}
		o.productCost = *t.ProductCost
	}
	switch {
	case len(bad) > 0:
		return o, apperr.Invalid("Invalid transaction.", append(bad, missing...)...)
	case len(missing) > 0:
		return o, apperr.Missing("Invalid transaction.", missing...)
	}
	return o, nil
}

// currencyCode reports whether c (upper case) has the shape of an ISO 4217 code.
func currencyCode(c string) bool {
	return len(c) == 3 && strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// parseTime reads the RFC 3339 date-time of member, a supported instant (facts.TimeOK), or says
// what is wrong with it.
func parseTime(member, s string) (time.Time, string) {
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	switch {
	case err != nil:
		return t, member + ": not an RFC 3339 date-time such as 2024-03-01T10:00:00Z"
	case !facts.TimeOK(t):
		return t, member + ": must be " + facts.TimeRange()
	}
	return t, ""
}

// truncate cuts s to n bytes, marking the cut, so that an error repeats no more of a value.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
