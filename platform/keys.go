package platform

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/ids"
	"mtk/internal/ttlcache"
)

// Keys keeps the API keys, and remembers those it verified for KeyCacheTTL.
type Keys struct {
	db
	verified *ttlcache.Cache[string, cachedKey]
}

// APIKey is a workspace credential. Token is set only in the answer to its creation.
type APIKey struct {
	ID          string     `json:"id"`
	WorkspaceID string     `json:"workspace_id"`
	Name        string     `json:"name"`
	Prefix      string     `json:"prefix"`
	Scopes      []string   `json:"scopes"`
	ExpiresAt   *time.Time `json:"expires_at"`
	RevokedAt   *time.Time `json:"revoked_at"`
	LastUsedAt  *time.Time `json:"last_used_at"`
	CreatedAt   time.Time  `json:"created_at"`
	// OAuthClientID is the third-party platform the key was issued to through OAuth (nil for a
	// key made by hand), and GrantedBy the user who approved it.
	OAuthClientID *string `json:"oauth_client_id"`
	GrantedBy     *string `json:"granted_by"`
	Token         string  `json:"token,omitempty"`
}

// ParseExpiry reads a key expiry: never, 30d, 90d, 1y, or an RFC 3339 time (which may be in the
// past, making an expired key). It returns nil for never.
func ParseExpiry(s string, now time.Time) (*time.Time, error) {
	var t time.Time
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "never":
		return nil, nil
	case "30d":
		t = now.AddDate(0, 0, 30)
	case "90d":
		t = now.AddDate(0, 0, 90)
	case "1y":
		t = now.AddDate(1, 0, 0)
	default:
		parsed, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, apperr.Invalid("Invalid expiry.", fmt.Sprintf("expires: %q is not never, 30d, 90d, 1y or an RFC 3339 time", s))
		}
		t = parsed
	}
	t = t.UTC()
	return &t, nil
}

// CreateAPIKey makes a key and returns it with its token, which is never shown again.
func (s *Keys) CreateAPIKey(ctx context.Context, workspaceID, name string, scopes []string, expiresAt *time.Time) (APIKey, error) {
	return s.createAPIKey(ctx, s.pool, APIKey{WorkspaceID: workspaceID, Name: name, Scopes: scopes, ExpiresAt: expiresAt})
}

// scopeProblems words what is wrong with a credential's scopes: none, or unknown ones.
func scopeProblems(scopes []string) []string {
	if len(scopes) == 0 {
		return []string{"scopes: at least one of " + strings.Join(auth.AllScopes, ", ")}
	}
	var problems []string
	for i, sc := range scopes {
		if !auth.ValidScope(sc) {
			problems = append(problems, fmt.Sprintf("scopes[%d]: unknown scope %q", i, sc))
		}
	}
	return problems
}

// execer is a pool or a transaction.
type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// createAPIKey validates and inserts k (its workspace, name, scopes, expiry and OAuth marks)
// through q, and returns it with its id and token.
func (s *Keys) createAPIKey(ctx context.Context, q execer, k APIKey) (APIKey, error) {
	var problems []string
	if strings.TrimSpace(k.Name) == "" {
		problems = append(problems, "name: required")
	}
	problems = append(problems, scopeProblems(k.Scopes)...)
	if len(problems) > 0 {
		return APIKey{}, apperr.Invalid("Invalid API key.", problems...)
	}
	token, err := auth.NewAPIKeyToken()
	if err != nil {
		return APIKey{}, err
	}
	k.ID, k.Prefix, k.Token, k.CreatedAt = ids.New(ids.APIKey), auth.DisplayPrefix(token), token, s.clock.Now()
	k.Scopes = slices.Compact(slices.Sorted(slices.Values(k.Scopes)))
	_, err = q.Exec(ctx, `INSERT INTO api_keys (id, workspace_id, name, prefix, token_hash, scopes, expires_at, created_at,
		oauth_client_id, granted_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		k.ID, k.WorkspaceID, k.Name, k.Prefix, auth.HashAPIKey(token), k.Scopes, k.ExpiresAt, k.CreatedAt, k.OAuthClientID, k.GrantedBy)
	if isForeignKeyViolation(err) {
		return APIKey{}, apperr.NotFound("Workspace not found.")
	}
	return k, err
}

const keyColumns = "id, workspace_id, name, prefix, scopes, expires_at, revoked_at, last_used_at, created_at, oauth_client_id, granted_by"

func scanKey(row pgx.CollectableRow) (APIKey, error) {
	var k APIKey
	err := row.Scan(&k.ID, &k.WorkspaceID, &k.Name, &k.Prefix, &k.Scopes, &k.ExpiresAt, &k.RevokedAt, &k.LastUsedAt, &k.CreatedAt, &k.OAuthClientID, &k.GrantedBy)
	return k, err
}

// ListAPIKeys lists a workspace's keys, newest first, without tokens.
func (s *Keys) ListAPIKeys(ctx context.Context, workspaceID string) ([]APIKey, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+keyColumns+" FROM api_keys WHERE workspace_id = $1 ORDER BY created_at DESC, id", workspaceID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanKey)
}

// RevokeAPIKey revokes a key; revoking twice keeps the first time.
func (s *Keys) RevokeAPIKey(ctx context.Context, id string) (APIKey, error) {
	defer s.forgetKeys(id)
	return queryOne(ctx, s.db, scanKey, apperr.NotFound("API key not found."),
		"UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING "+keyColumns, id, s.clock.Now())
}

// forgetKeys drops revoked keys from this server's verification cache, so that revoking takes
// effect here at once (and on other servers when they hear of it: Services.Subscribe).
func (s *Keys) forgetKeys(ids ...string) {
	s.verified.Forget(func(_ string, k cachedKey) bool { return slices.Contains(ids, k.principal.KeyID) })
}

// lastUsedResolution limits last_used_at writes to one per key per minute.
const lastUsedResolution = time.Minute

// VerifyAPIKey resolves a token to its principal: unknown or revoked keys are 401
// invalid_api_key, expired keys 401 expired_api_key. A key verified less than KeyCacheTTL ago is
// not read again.
func (s *Keys) VerifyAPIKey(ctx context.Context, token string) (*auth.Principal, error) {
	if !auth.LooksLikeAPIKey(token) {
		return nil, invalidKey()
	}
	now := s.clock.Now()
	sum := auth.SumAPIKey(token)
	k, err := s.verified.Load(string(sum[:]), now, func() (cachedKey, error) {
		hash := sum // read from PostgreSQL: a copy that may leave the stack, on a miss only
		var (
			k        = cachedKey{principal: auth.Principal{Kind: auth.KindAPIKey}}
			p        = &k.principal
			revoked  *time.Time
			lastUsed *time.Time
		)
		err := s.pool.QueryRow(ctx, `SELECT k.id, k.workspace_id, w.tier, k.scopes, k.expires_at, k.revoked_at, k.last_used_at
			FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id WHERE k.token_hash = $1`, hash[:]).
			Scan(&p.KeyID, &p.WorkspaceID, &p.Tier, &p.Scopes, &k.expires, &revoked, &lastUsed)
		if isNoRows(err) {
			return k, invalidKey()
		}
		if err != nil {
			return k, err
		}
		if revoked != nil {
			return k, apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "This API key has been revoked.")
		}
		if k.expired(now) {
			return k, expiredKey()
		}
		if lastUsed == nil || now.Sub(*lastUsed) >= lastUsedResolution {
			_, err = s.pool.Exec(ctx, "UPDATE api_keys SET last_used_at = $2 WHERE id = $1", p.KeyID, now)
		}
		return k, err
	})
	if err != nil {
		return nil, err
	}
	if k.expired(now) { // expired since it was cached
		return nil, expiredKey()
	}
	p := k.principal
	return &p, nil
}

// invalidKey is made where it is returned: a verified key (a cache hit) allocates no error.
func invalidKey() error {
	return apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Invalid API key.")
}

func expiredKey() error {
	return apperr.Unauthenticated(apperr.CodeExpiredAPIKey, "This API key has expired.")
}
