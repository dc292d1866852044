package facts

// The transaction statuses of the spec: what an order's state counts depends on them.
const (
	OrderPending    = "pending"
	OrderApproved   = "approved"
	OrderFailed     = "failed"
	OrderRefunded   = "refunded"
	OrderChargeback = "chargeback"
)

// OrderValues are the measures an order's state counts, the one rule every stream (ad facts,
// business facts, journeys, hence credits) applies: every order counts in tx_count_total; an
// approved one its revenue and product costs (value and cost in minor units of its currency)
// and tx_count; a pending one tx_count_pending; a refunded or charged-back one
// tx_count_refunded. A failed order counts nothing: false.
func OrderValues(status string, value, cost int64) (Values, bool) {
	var v Values
	switch status {
	case OrderFailed:
		return v, false
	case OrderApproved:
		v[TxRevenue], v[TxCount], v[TxProductCosts] = value*MicrosPerMinor, 1, cost*MicrosPerMinor
	case OrderPending:
		v[TxCountPending] = 1
	default: // refunded, chargeback
		v[TxCountRefunded] = 1
	}
	v[TxCountTotal] = 1
	return v, true
}
