package platform

import (
	"context"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
	"mtk/internal/auth"
)

const (
	// CodeLifetime is how long an authorization code may be redeemed: long enough for a
	// platform's callback to reach its token request, short enough that a leaked code is stale.
	CodeLifetime = 60 * time.Second
	// codeKept is how long a code's row outlives its lifetime, so that a second redemption is
	// still recognised (and revokes the key that the first one produced).
	codeKept = 24 * time.Hour
	// codePrefix starts every authorization code.
	codePrefix = "mtk_code_"
)

// CodeGrant is what the person approved on the consent page: the client, the workspace, the
// scopes, and the request's redirect URI and PKCE challenge that the code is bound to.
type CodeGrant struct {
	ClientID    string
	WorkspaceID string
	UserID      string
	RedirectURI string
	Scopes      []string
	Challenge   string
}

// IssueCode stores a fresh authorization code for g and returns it; only its hash is kept.
// Codes past their keeping time are deleted on the way.
func (s *OAuth) IssueCode(ctx context.Context, g CodeGrant) (string, error) {
	code, err := auth.NewSecret(codePrefix)
	if err != nil {
		return "", err
	}
	now := s.clock.Now()
	if _, err := s.pool.Exec(ctx, "DELETE FROM oauth_codes WHERE expires_at < $1", now.Add(-codeKept)); err != nil {
		return "", err
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO oauth_codes (code_hash, client_id, workspace_id, user_id, redirect_uri, scopes,
		code_challenge, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		auth.HashSecret(code), g.ClientID, g.WorkspaceID, g.UserID, g.RedirectURI, g.Scopes, g.Challenge, now, now.Add(CodeLifetime))
	return code, err
}

// Redemption is a token request's authorization_code grant, from an authenticated client.
type Redemption struct {
	Client      OAuthClient
	Code        string
	RedirectURI string
	Verifier    string
}

// errReused is returned out of the redemption's transaction, which commits the revocation.
var errReused = apperr.InvalidGrant("This authorization code was already used; the API key it produced is now revoked.")

// RedeemCode exchanges an authorization code for a new API key of the code's workspace, named
// for the client and marked as issued to it, in one transaction with spending the code. Every
// refusal is invalid_grant (RFC 6749 section 5.2); a code redeemed twice also revokes the key of
// its first redemption (section 4.1.2).
func (s *OAuth) RedeemCode(ctx context.Context, r Redemption) (APIKey, error) {
	var (
		key     APIKey
		revoked string
		reused  bool
	)
	now := s.clock.Now()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var (
			g       CodeGrant
			expires time.Time
			used    *time.Time
			keyID   *string
		)
		hash := auth.HashSecret(r.Code)
		err := tx.QueryRow(ctx, `SELECT client_id, workspace_id, user_id, redirect_uri, scopes, code_challenge, expires_at, used_at, key_id
			FROM oauth_codes WHERE code_hash = $1 FOR UPDATE`, hash).
			Scan(&g.ClientID, &g.WorkspaceID, &g.UserID, &g.RedirectURI, &g.Scopes, &g.Challenge, &expires, &used, &keyID)
		switch {
		case isNoRows(err):
			return apperr.InvalidGrant("Unknown authorization code.")
		case err != nil:
			return err
		case g.ClientID != r.Client.ID:
			return apperr.InvalidGrant("This authorization code was issued to another client.")
		case used != nil:
			reused = true
			if keyID != nil {
				revoked = *keyID
				_, err := tx.Exec(ctx, "UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1", revoked, now)
				return err
			}
			return nil
		case !now.Before(expires):
			return apperr.InvalidGrant("This authorization code has expired: codes last 60 seconds.")
		case g.RedirectURI != r.RedirectURI:
			return apperr.InvalidGrant("redirect_uri differs from the authorization request's.")
		case !auth.VerifyPKCE(r.Verifier, g.Challenge):
			return apperr.InvalidGrant("code_verifier does not match the authorization request's code_challenge.")
		}
		key, err = s.keys.createAPIKey(ctx, tx, APIKey{WorkspaceID: g.WorkspaceID, Name: r.Client.Name, Scopes: g.Scopes,
			OAuthClientID: &r.Client.ID, GrantedBy: &g.UserID})
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "UPDATE oauth_codes SET used_at = $2, key_id = $3 WHERE code_hash = $1", hash, now, key.ID)
		return err
	})
	if revoked != "" {
		s.keys.forgetKeys(revoked)
	}
	if err == nil && reused {
		err = errReused
	}
	return key, err
}

// RevokeOAuthToken revokes an API key that was issued to client (RFC 7009). A token that is no
// key, or is revoked already, is no error; a key not issued to client is refused.
func (s *OAuth) RevokeOAuthToken(ctx context.Context, client OAuthClient, token string) error {
	if !auth.LooksLikeAPIKey(token) {
		return nil
	}
	var id string
	var issuedTo *string
	err := s.pool.QueryRow(ctx, "SELECT id, oauth_client_id FROM api_keys WHERE token_hash = $1", auth.HashAPIKey(token)).Scan(&id, &issuedTo)
	if isNoRows(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if issuedTo == nil || *issuedTo != client.ID {
		return &apperr.Error{Status: http.StatusBadRequest, Type: apperr.TypeAuthorization, Code: apperr.CodeUnauthorizedClient,
			Message: "This token was not issued to this client."}
	}
	_, err = s.keys.RevokeAPIKey(ctx, id)
	return err
}

// ListGrants lists the workspace's keys that platforms hold through OAuth and that still work:
// its connected platforms.
func (s *OAuth) ListGrants(ctx context.Context, workspaceID string) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+keyColumns+` FROM api_keys WHERE workspace_id = $1 AND oauth_client_id IS NOT NULL
		AND revoked_at IS NULL ORDER BY created_at DESC, id`, workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanKey)
}

// RevokeGrant revokes one of the workspace's connected platforms (a key issued through OAuth
// that still works), in one statement; any other key is not found.
func (s *OAuth) RevokeGrant(ctx context.Context, workspaceID, keyID string) (APIKey, error) {
	defer s.keys.forgetKeys(keyID)
	return queryOne(ctx, s.db, scanKey, apperr.NotFound("No connected platform with this id in this workspace."),
		`UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND workspace_id = $2 AND oauth_client_id IS NOT NULL
		AND revoked_at IS NULL RETURNING `+keyColumns, keyID, workspaceID, s.clock.Now())
}
