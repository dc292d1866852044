package idempotency

import (
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5"
)

// Receipt is the record of a key's first call while it runs, for a handler whose work is one
// PostgreSQL transaction: QueueAnswer writes the call's answer in that transaction, so that a
// crash leaves the work and its answer both stored or neither (a retry then replays the answer,
// or runs the call again). Once the transaction commits, Answered tells the middleware that the
// record is finished. A handler that never uses its Receipt gets the answer stored after it
// returns, as any other.
type Receipt struct {
	claim     Claim
	requestID string
	encode    func(any) ([]byte, error)
	answered  atomic.Bool
}

// ReceiptOf is the Receipt of the request being run as its key's first call; nil without a key.
func ReceiptOf(c *fiber.Ctx) *Receipt {
	r, _ := c.Locals(receiptLocal).(*Receipt)
	return r
}

// NewReceipt is the Receipt of a Started claim, answered in requestID's name, with bodies
// encoded by encode (the app's JSON encoder, so that the stored body is the one the handler
// sends).
func NewReceipt(claim Claim, requestID string, encode func(any) ([]byte, error)) *Receipt {
	return &Receipt{claim: claim, requestID: requestID, encode: encode}
}

const receiptLocal = "mtk.idempotency_receipt"

// QueueAnswer queues on b the storing of a 200 JSON answer with body v, as c.JSON(v) would send it.
func (r *Receipt) QueueAnswer(b *pgx.Batch, v any) error {
	body, err := r.encode(v)
	if err != nil {
		return err
	}
	queueFinish(b, r.claim, Response{Status: fiber.StatusOK, ContentType: fiber.MIMEApplicationJSON, Body: body,
		RequestID: r.requestID})
	return nil
}

// Answered records that the transaction holding the answer committed.
func (r *Receipt) Answered() { r.answered.Store(true) }
