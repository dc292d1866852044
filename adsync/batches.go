package adsync

import (
	"context"
	"fmt"

	"mtk/facts"
	"mtk/internal/chfence"
)

// batch is one run's fact writes: the changed buckets and where their facts go. Its id is the
// id of the run that made it, and every ClickHouse row it writes carries it.
type batch struct {
	id      string
	sink    factSink
	changes []change
	// query names the inserts of the batch's latest try (chfence.Named), recorded with the batch
	// (sync_batches.query_id) before the try sends anything.
	query string
}

// Failure points of a batch, in order, where the test seam (Syncer.failAt) can stop a run:
// after the insert into each landing table (named by the table), before the transaction that
// applies the snapshot (pointApply), and inside it just before its commit (pointCommit).
const (
	pointApply  = "apply"
	pointCommit = "commit"
)

// fail asks the test seam whether to stop at point.
func (s *Syncer) fail(point string) error {
	if s.failAt == nil {
		return nil
	}
	return s.failAt(point)
}

// land writes a stored (pending) batch's facts, one INSERT per landing table, then applies its
// snapshot, marks it applied and moves the data versions of its days. A recovering land first
// ends the statements of the batch's interrupted try (chfence: ClickHouse goes on with an insert
// whose run died or gave up, and may store it after the look-up), records its own try, then asks
// ClickHouse which of the batch's rows it already holds and writes only the others, so a batch
// lands exactly once whichever step a failure stopped. It returns the fact rows written.
func (s *Syncer) land(ctx context.Context, b batch, recovering bool) (int64, error) {
	if recovering {
		if err := (chfence.Fence{CH: s.ClickHouse, Cluster: s.Cluster}).End(ctx, []string{b.query}); err != nil {
			return 0, err
		}
		b.query = chfence.NewPrefix(queryPrefix)
		if err := s.Store.recordTry(ctx, b.id, b.query); err != nil {
			return 0, err
		}
	}
	ch := chfence.Named(s.ClickHouse, b.query)
	byLanding := b.sink.facts(b.changes)
	var written int64
	var moved []facts.Change // every row's, since rows a failed run wrote may not have moved theirs
	for _, l := range landings {
		rows := byLanding[l]
		moved = append(moved, facts.FactChanges(b.sink.projectLoc, rows)...)
		if recovering {
			var err error
			if rows, err = facts.MissingBatchFacts(ctx, s.ClickHouse, l, b.sink.projectLoc, b.id, rows); err != nil {
				return written, err
			}
		}
		if err := facts.InsertBatch(ctx, ch, l, b.sink.projectLoc, b.id, rows); err != nil {
			return written, err
		}
		written += int64(len(rows))
		if err := s.fail(string(l)); err != nil {
			return written, err
		}
	}
	if err := s.fail(pointApply); err != nil {
		return written, err
	}
	return written, s.Store.applyBatch(ctx, b.id, s.Clock.Now(), moved, func() error { return s.fail(pointCommit) })
}

// queryPrefix starts the query ids of a batch's inserts (chfence.NewPrefix).
const queryPrefix = "sync"

// Recover completes the connection's pending batch, if a failure left one, under the
// connection's lock (ErrBusy when another run holds it), and returns the fact rows it wrote.
// Every run does this first; Recover does it alone.
func (s *Syncer) Recover(ctx context.Context, connectionID string) (int64, error) {
	release, ok, err := s.Store.tryLock(ctx, connectionID)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, ErrBusy
	}
	defer release()
	return s.recoverPending(ctx, connectionID)
}

// recoverPending completes the connection's pending batch, if any; the caller holds the lock.
func (s *Syncer) recoverPending(ctx context.Context, connectionID string) (int64, error) {
	b, ok, err := s.Store.pendingBatch(ctx, connectionID)
	if err != nil || !ok {
		return 0, err
	}
	n, err := s.land(ctx, b, true)
	if err != nil {
		return n, fmt.Errorf("completing batch %s: %w", b.id, err)
	}
	return n, nil
}
