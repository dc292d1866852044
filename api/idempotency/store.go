package idempotency

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const (
	// Window is how long a key's first answer is replayed.
	Window = 24 * time.Hour
	// Lease is how long an unfinished first call holds its key unless renewed: the running call
	// renews it every third of it (Config.Lease). It is shorter than every Retry-After of a 503
	// (2 s and more), so that a retry after one never finds the key still held by a call that
	// could not release it.
	Lease = 2 * time.Second
)

// Request identifies one call with an Idempotency-Key.
type Request struct {
	Scope    string
	Key      string
	Method   string
	Path     string // with the query string
	BodyHash []byte // SHA-256 of the raw body
}

// Response is a stored answer.
type Response struct {
	Status      int
	ContentType string
	Body        []byte
	// RequestID is the first call's X-Request-Id, which a replay answers with, so that an error
	// body's request_id still equals the header.
	RequestID string
}

// Outcome is what Begin found.
type Outcome int

// The outcomes of Begin.
const (
	// Started: the caller owns the key, runs the request and then calls Finish or Abandon.
	Started Outcome = iota
	// Replay: the key's first call finished; Claim.Response is its answer.
	Replay
	// Mismatch: the key was first used for another method, path or body.
	Mismatch
	// InProgress: the key's first call is still running.
	InProgress
)

// Claim is the answer of Begin.
type Claim struct {
	Outcome  Outcome
	Response Response // for Replay
	// LeaseLeft is, for InProgress, how long the running call's lease still holds the key.
	LeaseLeft time.Duration

	scope, key string
	started    time.Time // fences Finish and Abandon against a takeover
}

// Store keeps idempotency records in PostgreSQL.
type Store struct {
	pool *pgxpool.Pool
}

// NewStore returns a Store on pool.
func NewStore(pool *pgxpool.Pool) *Store { return &Store{pool: pool} }

// beginAttempts bounds the retries of Begin when the record it saw vanished in between (a
// concurrent Abandon or Purge).
const beginAttempts = 3

// Begin claims r's key at now, under a lease of lease. It inserts a running record unless one
// exists; an expired record, or an unfinished one of the same request whose lease has ended, is
// replaced. Otherwise the existing record decides: Replay, Mismatch or InProgress.
func (s *Store) Begin(ctx context.Context, r Request, now time.Time, lease time.Duration) (Claim, error) {
	now = now.UTC().Truncate(time.Microsecond) // PostgreSQL's precision, so that fencing compares equal
	for range beginAttempts {
		var started time.Time
		err := s.pool.QueryRow(ctx, `
			INSERT INTO idempotency_records AS r (scope, key, method, path, body_hash, created_at, expires_at, lease_until)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (scope, key) DO UPDATE SET
				method = EXCLUDED.method, path = EXCLUDED.path, body_hash = EXCLUDED.body_hash,
				status = NULL, content_type = NULL, response_body = NULL, request_id = NULL,
				created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at, lease_until = EXCLUDED.lease_until
			WHERE r.expires_at <= EXCLUDED.created_at
				OR (r.status IS NULL AND r.lease_until <= EXCLUDED.created_at
					AND r.method = EXCLUDED.method AND r.path = EXCLUDED.path AND r.body_hash = EXCLUDED.body_hash)
			RETURNING created_at`,
			r.Scope, r.Key, r.Method, r.Path, r.BodyHash, now, now.Add(Window), now.Add(lease),
		).Scan(&started)
		if err == nil {
			return Claim{Outcome: Started, scope: r.Scope, key: r.Key, started: started}, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return Claim{}, fmt.Errorf("idempotency: claim key: %w", err)
		}
		c, found, err := s.existing(ctx, r, now)
		if err != nil || found {
			return c, err
		}
	}
	return Claim{}, fmt.Errorf("idempotency: claim key: record of %s kept changing", r.Scope)
}

// existing reads the record that kept Begin from claiming the key. found is false when there is
// none, or it expired or its lease ended since: Begin then tries again.
func (s *Store) existing(ctx context.Context, r Request, now time.Time) (c Claim, found bool, err error) {
	var (
		method, path string
		bodyHash     []byte
		status       *int
		contentType  *string
		requestID    *string
		body         []byte
		expiresAt    time.Time
		leaseUntil   time.Time
	)
	err = s.pool.QueryRow(ctx, `
		SELECT method, path, body_hash, status, content_type, response_body, request_id, expires_at, lease_until
		FROM idempotency_records WHERE scope = $1 AND key = $2`, r.Scope, r.Key,
	).Scan(&method, &path, &bodyHash, &status, &contentType, &body, &requestID, &expiresAt, &leaseUntil)
	if errors.Is(err, pgx.ErrNoRows) {
		return Claim{}, false, nil
	}
	if err != nil {
		return Claim{}, false, fmt.Errorf("idempotency: read record: %w", err)
	}
	switch {
	case !expiresAt.After(now):
		return Claim{}, false, nil
	case method != r.Method || path != r.Path || string(bodyHash) != string(r.BodyHash):
		return Claim{Outcome: Mismatch}, true, nil
	case status == nil && !leaseUntil.After(now):
		return Claim{}, false, nil // its lease ended since: Begin takes it over
	case status == nil:
		return Claim{Outcome: InProgress, LeaseLeft: leaseUntil.Sub(now)}, true, nil
	}
	resp := Response{Status: *status, Body: body}
	if contentType != nil {
		resp.ContentType = *contentType
	}
	if requestID != nil {
		resp.RequestID = *requestID
	}
	return Claim{Outcome: Replay, Response: resp}, true, nil
}

// Finish stores the answer of a Started claim. It does nothing when the claim was taken over, or
// finished in the handler's transaction (Receipt).
func (s *Store) Finish(ctx context.Context, c Claim, resp Response) error {
	b := &pgx.Batch{}
	queueFinish(b, c, resp)
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("idempotency: store answer: %w", err)
	}
	return nil
}

func queueFinish(b *pgx.Batch, c Claim, resp Response) {
	b.Queue(`
		UPDATE idempotency_records SET status = $4, content_type = $5, response_body = $6, request_id = $7
		WHERE scope = $1 AND key = $2 AND created_at = $3 AND status IS NULL`,
		c.scope, c.key, c.started, resp.Status, resp.ContentType, resp.Body, resp.RequestID)
}

// Renew extends a Started claim's lease to until while its call runs. owned is false once the
// claim is no longer this owner's: taken over after its lease ended, or abandoned. A claim
// finished meanwhile (by a Receipt) is still owned, and is left as it is.
func (s *Store) Renew(ctx context.Context, c Claim, until time.Time) (owned bool, err error) {
	err = s.pool.QueryRow(ctx, `
		WITH renewed AS (
			UPDATE idempotency_records SET lease_until = $4
			WHERE scope = $1 AND key = $2 AND created_at = $3 AND status IS NULL)
		SELECT EXISTS (SELECT FROM idempotency_records WHERE scope = $1 AND key = $2 AND created_at = $3)`,
		c.scope, c.key, c.started, until).Scan(&owned)
	if err != nil {
		return false, fmt.Errorf("idempotency: renew lease: %w", err)
	}
	return owned, nil
}

// Abandon removes the record of a Started claim, so that a retry runs again. It does nothing when
// the claim was taken over.
func (s *Store) Abandon(ctx context.Context, c Claim) error {
	_, err := s.pool.Exec(ctx, `
		DELETE FROM idempotency_records
		WHERE scope = $1 AND key = $2 AND created_at = $3 AND status IS NULL`,
		c.scope, c.key, c.started)
	if err != nil {
		return fmt.Errorf("idempotency: remove record: %w", err)
	}
	return nil
}

// Purge deletes the records expired at now and returns how many it deleted.
func (s *Store) Purge(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM idempotency_records WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("idempotency: purge: %w", err)
	}
	return tag.RowsAffected(), nil
}
