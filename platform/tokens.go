package platform

import (
	"context"
	"time"

	"mtk/internal/apperr"
	"mtk/internal/auth"
)

// Login tokens (JWTs) are checked by their signature, and here for what the signature cannot
// tell: that the user still exists, that no password change came after the token (its
// generation is the user's), and that it was not logged out (its id is not in revoked_tokens).

// tokenState is what PostgreSQL says of one login token: its user's current generation, whether
// the user exists, and whether the token was revoked.
type tokenState struct {
	userID     string
	generation int64
	exists     bool
	revoked    bool
}

// invalidToken is the 401 for a login token that was taken back.
func invalidToken() error {
	return apperr.Unauthenticated(apperr.CodeInvalidToken, "This token is no longer valid (logged out, or the password changed): log in again.")
}

// VerifyLoginToken refuses (401 invalid_token) a verified login token whose user is gone, whose
// generation is older than the user's (a password change since), or that was logged out. What it
// reads is trusted for KeyCacheTTL; a logout or password change through this Store counts at once.
func (s *Store) VerifyLoginToken(ctx context.Context, t auth.LoginToken) error {
	st, err := s.tokens.Load(t.ID, s.clock.Now(), func() (tokenState, error) {
		st := tokenState{userID: t.UserID}
		err := s.pool.QueryRow(ctx, `SELECT u.token_generation, EXISTS (SELECT 1 FROM revoked_tokens r WHERE r.token_id = $2)
			FROM users u WHERE u.id = $1`, t.UserID, t.ID).Scan(&st.generation, &st.revoked)
		if isNoRows(err) {
			return st, nil
		}
		st.exists = err == nil
		return st, err
	})
	if err != nil {
		return err
	}
	if !st.exists || st.revoked || st.userID != t.UserID || st.generation != t.Generation {
		return invalidToken()
	}
	return nil
}

// RevokeLoginToken logs one token out: it is refused from now on, until it would have expired
// anyway (PurgeRevokedTokens then forgets it). Revoking twice is revoking once.
func (s *Store) RevokeLoginToken(ctx context.Context, t auth.LoginToken) error {
	// Dropped after the row is written: a read racing this one cannot cache the old state again.
	defer s.tokens.Forget(func(id string, _ tokenState) bool { return id == t.ID })
	_, err := s.pool.Exec(ctx, `INSERT INTO revoked_tokens (token_id, user_id, expires_at) VALUES ($1, $2, $3)
		ON CONFLICT (token_id) DO NOTHING`, t.ID, t.UserID, t.ExpiresAt)
	if isForeignKeyViolation(err) {
		return invalidToken() // the user was deleted meanwhile: the token is dead anyway
	}
	return err
}

// PurgeRevokedTokens deletes the revocations of tokens that have expired by now (a job).
func (s *Store) PurgeRevokedTokens(ctx context.Context, now time.Time) (int64, error) {
	tag, err := s.pool.Exec(ctx, "DELETE FROM revoked_tokens WHERE expires_at <= $1", now)
	return tag.RowsAffected(), err
}
