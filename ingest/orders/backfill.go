package orders

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"mtk/ingest/factstream"
	"mtk/platform"
)

// ErrTouchesWaiting means an order's lead is older than the touch history (schema/postgres/0022):
// its business rows are written once the touch backfill (events.TouchBackfill) is done.
var ErrTouchesWaiting = errors.New("orders: the touches of leads older than the touch history are still being read back")

// BackfillBusiness writes the business rows of at most limit orders stored before the business
// family or before their lead's touch was known (orders.business false), in one transaction each
// batch: every order's rows as its stored state gives them (its touch and customer type read now),
// queued in the fact outbox with the mark that they are written. A crash loses the batch whole, a rerun takes it again, and an order
// a webhook changed meanwhile is skipped (its change wrote its rows). It returns how many orders
// it wrote and how many are left.
func (s *Service) BackfillBusiness(ctx context.Context, limit int) (done, left int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT o.connection_id, o.transaction_id, o.project_id
			FROM orders o WHERE NOT o.business ORDER BY o.project_id, o.created_at, o.connection_id, o.transaction_id
			LIMIT $1 FOR UPDATE OF o SKIP LOCKED`, limit)
		if err != nil {
			return err
		}
		type pending struct{ connection, id, project string }
		todo, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (pending, error) {
			var p pending
			return p, r.Scan(&p.connection, &p.id, &p.project)
		})
		if err != nil {
			return err
		}
		zones := map[string]string{} // by project; an order's project outlives it (ON DELETE CASCADE)
		for _, o := range todo {
			if _, ok := zones[o.project]; !ok {
				if zones[o.project], err = platform.ProjectTimezone(ctx, tx, o.project); err != nil {
					return err
				}
			}
		}
		w := &pgx.Batch{}
		var biz []factstream.BizRow
		for _, o := range todo {
			st, found, err := lockOrder(ctx, tx, o.connection, o.id)
			if err != nil {
				return err
			}
			if !found || st.business {
				continue // locked above: not expected, but nothing to write
			}
			var known bool
			if st.touch, known, err = LeadTouch(ctx, tx, o.project, st.leadID, st.created); err != nil {
				return err
			} else if !known {
				return ErrTouchesWaiting
			}
			if st.customerType, err = customerType(ctx, tx, o.project, o.connection, st); err != nil {
				return err
			}
			biz = append(biz, st.bizRows(platform.Project{ID: o.project, Timezone: zones[o.project]})...)
			w.Queue(`UPDATE orders SET business = true, customer_type = $3, referrer_host = $4, landing_path = $5,
				device = $6 WHERE connection_id = $1 AND transaction_id = $2`,
				o.connection, o.id, st.customerType, st.touch.ReferrerHost, st.touch.LandingPath, st.touch.Device)
		}
		factstream.QueueBiz(w, biz, s.clock.Now())
		if w.Len() > 0 {
			if err := tx.SendBatch(ctx, w).Close(); err != nil {
				return err
			}
		}
		done = len(todo)
		return tx.QueryRow(ctx, "SELECT count(*) FROM orders WHERE NOT business").Scan(&left)
	})
	if err != nil {
		return 0, 0, fmt.Errorf("orders: backfill business rows: %w", err)
	}
	return done, left, nil
}

// BusinessBackfilled reports whether the business backfill has recorded that it finished
// (FinishBusinessBackfill).
func (s *Service) BusinessBackfilled(ctx context.Context) (bool, error) {
	var finished bool
	if err := s.pool.QueryRow(ctx, "SELECT finished_at IS NOT NULL FROM business_backfill").Scan(&finished); err != nil {
		return false, fmt.Errorf("orders: read the business backfill: %w", err)
	}
	return finished, nil
}

// FinishBusinessBackfill records that the business backfill has finished, and reports whether it
// has: the touches are read back, the stored events' rows written and no order is left without
// its rows. An order is stored without them only by a webhook that read the touch backfill
// unfinished; the share lock on orders waits for the webhooks writing now and holds new ones
// while it counts, so that none commits such an order after the count.
func (s *Service) FinishBusinessBackfill(ctx context.Context) (finished bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE orders IN SHARE MODE"); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE business_backfill SET finished_at = $1
			WHERE finished_at IS NULL AND events_done AND (SELECT done FROM touch_backfill)
			AND NOT EXISTS (SELECT 1 FROM orders WHERE NOT business)`, s.clock.Now())
		finished = err == nil && tag.RowsAffected() == 1
		return err
	})
	if err != nil {
		return false, fmt.Errorf("orders: finish the business backfill: %w", err)
	}
	return finished, nil
}
