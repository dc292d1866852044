package idempotency

import (
	"context"
	"errors"
	"time"

	"mtk/internal/clock"
)

// errLeaseLost ends a running call's context when its claim's lease ended unrenewed (the store
// did not answer the renewals) or the claim was taken over: a repeat may be running the call.
var errLeaseLost = errors.New("idempotency: the key's lease ended while its call ran")

// hold keeps a Started claim's lease, renewing it every third of lease (each renewal given that
// long), until release is called. It returns the context the call runs under: parent's, ended
// with errLeaseLost as its cause once the lease ends without a renewal, counted from claimed
// (when Begin was sent) and then from each successful renewal's sending, or once a renewal finds
// the claim gone. A process that dies renews nothing, so its claims free themselves within lease.
func hold(parent context.Context, store *Store, claim Claim, clk clock.Clock, lease time.Duration,
	claimed time.Time) (ctx context.Context, release func()) {
	ctx, lose := context.WithCancelCause(parent)
	renewals, stop := context.WithCancel(context.WithoutCancel(parent))
	// The lease's end is timed apart from the renewals, so that one waiting on the store does
	// not hold the call past it.
	ends := time.AfterFunc(time.Until(claimed.Add(lease)), func() { lose(errLeaseLost) })
	go func() {
		every := lease / 3
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-renewals.Done():
				return
			case <-tick.C: // past the request's deadline too: a call may run on (its answer stored)
			}
			sent := time.Now()
			rctx, cancel := context.WithTimeout(renewals, every)
			owned, err := store.Renew(rctx, claim, clk.Now().Add(lease))
			cancel()
			switch {
			case err != nil: // tried again at the next tick, until the lease ends
			case !owned:
				if renewals.Err() == nil { // not abandoned by the call itself: taken over
					lose(errLeaseLost)
				}
				return
			case !ends.Reset(time.Until(sent.Add(lease))):
				ends.Stop() // the lease had ended, or was released, meanwhile
				return
			}
		}
	}()
	return ctx, func() {
		stop() // a renewal under way is canceled; it changes nothing of a settled record
		ends.Stop()
		lose(context.Canceled)
	}
}
