package wire

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"mtk/ingest/events"
	"mtk/ingest/pairs"
)

// BackfillBatch is how many orders or events one step of the business backfill takes.
const BackfillBatch = 5000

// BackfillBusiness writes the business rows (business_raw) of the orders and events stored
// before the business family existed, and of the orders stored before their lead's touch was
// known, batch after batch, draining the outboxes as it goes, and logs its progress; it returns
// when nothing is left (at once when nothing ever was), with how many orders and events it
// wrote. It first reads back the touches of the leads older than the touch history
// (events.TouchBackfill), which those orders need. It is idempotent and restartable: each batch's
// rows and its progress commit together (orders.Service.BackfillBusiness, events.Backfill), so a
// crash and a rerun write everything exactly once. Once everything is written it records that it
// finished (orders.Service.FinishBusinessBackfill); a run after that reads the record and does
// nothing. `mtk backfill business` runs it, and so does the business-backfill job
// (businessBackfillJob).
func (s *System) BackfillBusiness(ctx context.Context, batch int) (orders int, evs int64, err error) {
	if finished, err := s.Orders.BusinessBackfilled(ctx); err != nil || finished {
		return 0, 0, err
	}
	tb := &events.TouchBackfill{Pool: s.Postgres, CH: s.ClickHouse}
	for finished := false; !finished; {
		var read int
		err := s.afterQueuedEvents(ctx, func() (err error) {
			read, finished, err = tb.Step(ctx, batch)
			return err
		})
		if err != nil {
			return orders, evs, err
		}
		if read > 0 {
			s.Log.Info("backfill business: touches", "read", read, "finished", finished)
		}
	}
	for {
		done, left, err := s.Orders.BackfillBusiness(ctx, batch)
		if err != nil {
			return orders, evs, err
		}
		if done == 0 {
			break
		}
		orders += done
		s.Log.Info("backfill business: orders", "written", orders, "left", left)
		if err := s.Drain(ctx); err != nil {
			return orders, evs, err
		}
	}
	bf := &events.Backfill{Pool: s.Postgres, CH: s.ClickHouse, Resolver: s.Resolver, Projects: s.Store.Projects, Now: s.Clock.Now}
	for {
		var read int
		var total int64
		var finished bool
		err := s.afterQueuedEvents(ctx, func() (err error) {
			read, total, finished, err = bf.Step(ctx, batch)
			return err
		})
		if err != nil {
			return orders, evs, err
		}
		evs += int64(read)
		if read > 0 {
			s.Log.Info("backfill business: events", "read", total, "finished", finished)
			if err := s.Drain(ctx); err != nil {
				return orders, evs, err
			}
		}
		if finished {
			// An order stored meanwhile without its rows (a webhook that read the touch backfill
			// unfinished) leaves the record for the next run.
			_, err := s.Orders.FinishBusinessBackfill(ctx)
			return orders, evs, err
		}
	}
}

// businessBackfillJob is the business-backfill job's run: BackfillBusiness until it has
// recorded that it finished, then nothing at all (not even reading the record again).
func (s *System) businessBackfillJob() func(context.Context) error {
	var finished atomic.Bool
	return func(ctx context.Context) error {
		if finished.Load() {
			return nil
		}
		if _, _, err := s.BackfillBusiness(ctx, BackfillBatch); err != nil {
			return err
		}
		done, err := s.Orders.BusinessBackfilled(ctx)
		finished.Store(done)
		return err
	}
}

// afterQueuedEvents runs a backfill step, and once more after a drain when the events it reads
// still wait in the event outbox (events.ErrEventsWaiting): they move to ClickHouse first.
func (s *System) afterQueuedEvents(ctx context.Context, step func() error) error {
	err := step()
	if !errors.Is(err, events.ErrEventsWaiting) {
		return err
	}
	if err := s.Drain(ctx); err != nil {
		return err
	}
	if err = step(); errors.Is(err, events.ErrEventsWaiting) {
		return fmt.Errorf("backfill business: %w; retry once they are drained", err)
	}
	return err
}

// BackfillPairs writes the business rows stored before the pair rollups existed into them, for
// every project still waiting (ingest/pairs), and returns how many projects it finished. It is
// race-free and restartable (see ingest/pairs). `mtk backfill pairs` runs it, by hand once every
// replica runs this version: no job does, since a replica of the older code writes rows that
// the pair rollups' views skip and that a finished backfill would never count.
func (s *System) BackfillPairs(ctx context.Context) (int, error) {
	b := &pairs.Backfill{Pool: s.Postgres, CH: s.ClickHouse, Cluster: s.Config.ClickHouseCluster, Log: s.Log}
	return b.Run(ctx)
}
