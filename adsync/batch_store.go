package adsync

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
)

// Batch states (sync_batches.status).
const (
	batchPending = "pending"
	batchApplied = "applied"
)

// batchHistory is how long an applied batch's header is kept, as a record of what each run
// wrote; its changes are deleted when it is applied.
const batchHistory = 7 * 24 * time.Hour

// applyBucketsSQL moves a batch's changes ($1) into sync_buckets: each bucket's new measures.
var applyBucketsSQL = func() string {
	set := make([]string, len(facts.AdMeasures))
	for i, m := range facts.AdMeasures {
		c := facts.Specs[m].Column
		set[i] = c + " = EXCLUDED." + c
	}
	return `INSERT INTO sync_buckets (connection_id, local_date, hour, ad_id, position, campaign_id, adset_id, ` +
		facts.Columns(facts.AdMeasures, "") + `)
		SELECT b.connection_id, c.local_date, c.hour, c.ad_id, c.position, c.campaign_id, c.adset_id, ` +
		facts.Columns(facts.AdMeasures, "c.") + `
		FROM sync_batch_changes c JOIN sync_batches b ON b.id = c.batch_id WHERE c.batch_id = $1
		ON CONFLICT (connection_id, local_date, hour, ad_id) DO UPDATE SET ` + strings.Join(set, ", ")
}()

// changeColumns are sync_batch_changes' columns after batch_id, in changeRow's order.
var changeColumns = strings.Split("local_date, hour, ad_id, position, campaign_id, adset_id, "+
	facts.Columns(facts.AdMeasures, "")+", "+facts.Columns(facts.AdMeasures, "delta_"), ", ")

func changeRow(batchID string, c change) ([]any, error) {
	date, err := time.Parse(time.DateOnly, c.Date)
	if err != nil {
		return nil, err
	}
	row := []any{batchID, date, int16(c.Hour), c.AdID, c.Position, c.CampaignID, c.AdsetID}
	return append(append(row, c.Metrics.Pick(facts.AdMeasures)...), c.delta.Pick(facts.AdMeasures)...), nil
}

// saveBatch stores b as pending in tx: its header (what places its facts) and its changes.
func saveBatch(ctx context.Context, tx pgx.Tx, b batch, at time.Time) error {
	s := b.sink
	if _, err := tx.Exec(ctx, `INSERT INTO sync_batches (id, connection_id, status, project_id, source, account_id, currency,
		account_tz, project_tz, written_at, fact_rows, created_at, query_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		b.id, s.connectionID, batchPending, s.projectID, s.source, s.account.ID, s.account.Currency,
		s.accountLoc.String(), s.projectLoc.String(), s.now, len(b.changes), at, b.query); err != nil {
		return err
	}
	rows := make([][]any, len(b.changes))
	for i, c := range b.changes {
		r, err := changeRow(b.id, c)
		if err != nil {
			return err
		}
		rows[i] = r
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"sync_batch_changes"}, append([]string{"batch_id"}, changeColumns...),
		pgx.CopyFromRows(rows))
	return err
}

// pendingBatch reads the connection's pending batch, if it has one.
func (s *Store) pendingBatch(ctx context.Context, connectionID string) (batch, bool, error) {
	b := batch{sink: factSink{connectionID: connectionID}}
	var accountTZ, projectTZ string
	err := s.pool.QueryRow(ctx, `SELECT id, project_id, source, account_id, currency, account_tz, project_tz, written_at, query_id
		FROM sync_batches WHERE connection_id = $1 AND status = $2`, connectionID, batchPending).Scan(
		&b.id, &b.sink.projectID, &b.sink.source, &b.sink.account.ID, &b.sink.account.Currency, &accountTZ, &projectTZ, &b.sink.now,
		&b.query)
	if err == pgx.ErrNoRows {
		return b, false, nil
	}
	if err != nil {
		return b, false, err
	}
	if b.sink.accountLoc, err = time.LoadLocation(accountTZ); err != nil {
		return b, false, fmt.Errorf("batch %s: %w", b.id, err)
	}
	if b.sink.projectLoc, err = time.LoadLocation(projectTZ); err != nil {
		return b, false, fmt.Errorf("batch %s: %w", b.id, err)
	}
	rows, err := s.pool.Query(ctx, `SELECT `+strings.Join(changeColumns, ", ")+`
		FROM sync_batch_changes WHERE batch_id = $1 ORDER BY local_date, hour, ad_id`, b.id)
	if err != nil {
		return b, false, err
	}
	defer rows.Close()
	var date time.Time
	var hour int16
	for rows.Next() {
		var c change
		dest := append([]any{&date, &hour, &c.AdID, &c.Position, &c.CampaignID, &c.AdsetID}, c.Metrics.Dest(facts.AdMeasures)...)
		if err := rows.Scan(append(dest, c.delta.Dest(facts.AdMeasures)...)...); err != nil {
			return b, false, err
		}
		c.Date, c.Hour = date.Format(time.DateOnly), int(hour)
		b.changes = append(b.changes, c)
	}
	return b, true, rows.Err()
}

// recordTry records that the inserts of a pending batch's new try are named by prefix, before
// the try sends anything: the statements of the try it follows have ended (chfence.Fence).
func (s *Store) recordTry(ctx context.Context, id, prefix string) error {
	if _, err := s.pool.Exec(ctx, `UPDATE sync_batches SET query_id = $2 WHERE id = $1 AND status = $3`,
		id, prefix, batchPending); err != nil {
		return fmt.Errorf("record a try of batch %s: %w", id, err)
	}
	return nil
}

// applyBatch stores a landed batch's bucket states in the snapshot and marks it applied, in one
// transaction; beforeCommit runs just before the commit (a test seam: its error rolls back).
// Applied batches older than batchHistory are deleted.
func (s *Store) applyBatch(ctx context.Context, id string, at time.Time, moved []facts.Change, beforeCommit func() error) error {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // after Commit it is a no-op
	if _, err := tx.Exec(ctx, applyBucketsSQL, id); err != nil {
		return err
	}
	var connectionID string
	if err := tx.QueryRow(ctx, `UPDATE sync_batches SET status = $2, applied_at = $3 WHERE id = $1 AND status = $4
		RETURNING connection_id`, id, batchApplied, at, batchPending).Scan(&connectionID); err != nil {
		return fmt.Errorf("mark batch %s applied: %w", id, err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM sync_batch_changes WHERE batch_id = $1`, id); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `DELETE FROM sync_batches WHERE connection_id = $1 AND status = $2 AND applied_at < $3`,
		connectionID, batchApplied, at.Add(-batchHistory)); err != nil {
		return err
	}
	if err := facts.Moved(ctx, tx, moved); err != nil {
		return err
	}
	if err := beforeCommit(); err != nil {
		return err
	}
	return tx.Commit(ctx)
}
