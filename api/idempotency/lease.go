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
// long; sooner while less than two thirds are left, as after a slow Begin), until release is
// called. It returns the context the call runs under: parent's, ended with errLeaseLost as its
// cause once the lease ends without a renewal, counted from claimed (when Begin was sent) and
// then from each successful renewal's sending, or once a renewal finds the claim gone. A process
// that dies renews nothing, so its claims free themselves within lease.
func hold(parent context.Context, store *Store, claim Claim, clk clock.Clock, lease time.Duration,
	claimed time.Time) (ctx context.Context, release func()) {
	ctx, lose := context.WithCancelCause(parent)
	renewals, stop := context.WithCancel(context.WithoutCancel(parent))
	// The lease's end is timed apart from the renewals, so that one waiting on the store does
	// not hold the call past it.
	end := claimed.Add(lease)
	ends := time.AfterFunc(time.Until(end), func() { lose(errLeaseLost) })
	go func() {
		every := lease / 3
		next := time.NewTimer(min(every, time.Until(end)/2))
		defer next.Stop()
		for {
			select {
			case <-renewals.Done():
				return
			case <-next.C: // past the request's deadline too: a call may run on (its answer stored)
			}
			sent := time.Now()
			rctx, cancel := context.WithTimeout(renewals, every)
			owned, err := store.Renew(rctx, claim, clk.Now().Add(lease))
			cancel()
			switch {
			case err != nil: // tried again, until the lease ends
			case !owned:
				if renewals.Err() == nil { // not abandoned by the call itself: taken over
					lose(errLeaseLost)
				}
				return
			case !ends.Reset(time.Until(sent.Add(lease))):
				ends.Stop() // the lease had ended, or was released, meanwhile
				return
			default:
				end = sent.Add(lease)
			}
			left := time.Until(end)
			if left <= 0 {
				return // ended: the call was stopped
			}
			next.Reset(min(every, left/2))
		}
	}()
	return ctx, func() {
		stop() // a renewal under way is canceled; it changes nothing of a settled record
		ends.Stop()
		lose(context.Canceled)
	}
}
