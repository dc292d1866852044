package platform

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/ids"
)

// clientSecretPrefix starts every OAuth client secret.
const clientSecretPrefix = "mtk_secret_"

// OAuthClient is a third-party platform registered to ask workspaces for API keys. A public
// client (a native or browser app) has no secret and proves itself with PKCE alone; a
// confidential one also authenticates with its secret. Secret is set only in the answer to its
// creation.
type OAuthClient struct {
	ID           string     `json:"client_id"`
	Name         string     `json:"name"`
	RedirectURIs []string   `json:"redirect_uris"`
	Scopes       []string   `json:"scopes"`
	Confidential bool       `json:"confidential"`
	CreatedAt    time.Time  `json:"created_at"`
	RevokedAt    *time.Time `json:"revoked_at"`
	Secret       string     `json:"client_secret,omitempty"`
}

// OAuthClientInput registers a client.
type OAuthClientInput struct {
	Name         string
	RedirectURIs []string
	Scopes       []string
	Confidential bool
}

// ValidRedirectURI reports why uri cannot be registered, or "" when it can: an absolute URI
// without a fragment that is https, http on a loopback host (RFC 8252 section 7.3), or a native
// app's private-use scheme in reverse-domain form (RFC 8252 section 7.1).
func ValidRedirectURI(uri string) string {
	u, err := url.Parse(uri)
	switch {
	case err != nil || !u.IsAbs():
		return "not an absolute URI"
	case u.Fragment != "" || strings.Contains(uri, "#"):
		return "has a fragment"
	case u.Scheme == "https":
		if u.Host == "" {
			return "has no host"
		}
		return ""
	case u.Scheme == "http":
		if h := u.Hostname(); h == "localhost" || h == "127.0.0.1" || h == "::1" {
			return ""
		}
		return "http is allowed only on a loopback host (127.0.0.1, [::1], localhost)"
	case strings.Contains(u.Scheme, "."):
		return ""
	default:
		return "want https, loopback http, or a reverse-domain private-use scheme (com.example.app:/callback)"
	}
}

// AllowsRedirect reports whether uri is one of c's redirect URIs: the same string, or, for one
// registered on a loopback IP literal (http://127.0.0.1, http://[::1]), the same URI with any
// port, since a native app listens on whatever port the system gives it (RFC 8252 section 7.3).
// Every other URI, localhost included, must match exactly.
func (c OAuthClient) AllowsRedirect(uri string) bool {
	host, rest, loopback := loopbackParts(uri)
	for _, r := range c.RedirectURIs {
		if r == uri {
			return true
		}
		if rHost, rRest, ok := loopbackParts(r); ok && loopback && rHost == host && rRest == rest {
			return true
		}
	}
	return false
}

// loopbackHosts are the hosts whose redirect URIs match with any port.
var loopbackHosts = []string{"127.0.0.1", "[::1]"}

// loopbackParts splits an http URI on a loopback IP literal into the host and what follows its
// port (path and query), or is ok=false for any other URI.
func loopbackParts(uri string) (host, rest string, ok bool) {
	for _, h := range loopbackHosts {
		after, found := strings.CutPrefix(uri, "http://"+h)
		if !found {
			continue
		}
		if strings.HasPrefix(after, ":") {
			digits := 0
			for digits+1 < len(after) && after[digits+1] >= '0' && after[digits+1] <= '9' {
				digits++
			}
			if digits == 0 || digits > 5 {
				return "", "", false
			}
			after = after[1+digits:]
		}
		// Anything else after the host (127.0.0.1.evil.example, 127.0.0.1@evil.example) is
		// another host.
		if after == "" || after[0] == '/' || after[0] == '?' {
			return h, after, true
		}
		return "", "", false
	}
	return "", "", false
}

// CreateOAuthClient registers a client and returns it, with its secret when confidential: the
// secret is never shown again.
func (s *Store) CreateOAuthClient(ctx context.Context, in OAuthClientInput) (OAuthClient, error) {
	var problems []string
	if strings.TrimSpace(in.Name) == "" {
		problems = append(problems, "name: required")
	}
	if len(in.RedirectURIs) == 0 {
		problems = append(problems, "redirect_uris: at least one")
	}
	for i, uri := range in.RedirectURIs {
		if why := ValidRedirectURI(uri); why != "" {
			problems = append(problems, fmt.Sprintf("redirect_uris[%d]: %q %s", i, uri, why))
		}
	}
	problems = append(problems, scopeProblems(in.Scopes)...)
	if len(problems) > 0 {
		return OAuthClient{}, apperr.Invalid("Invalid OAuth client.", problems...)
	}
	c := OAuthClient{
		ID: ids.New(ids.OAuthClient), Name: strings.TrimSpace(in.Name), RedirectURIs: slices.Compact(slices.Clone(in.RedirectURIs)),
		Scopes: slices.Compact(slices.Sorted(slices.Values(in.Scopes))), Confidential: in.Confidential, CreatedAt: s.clock.Now(),
	}
	var secretHash []byte
	if in.Confidential {
		secret, err := auth.NewSecret(clientSecretPrefix)
		if err != nil {
			return OAuthClient{}, err
		}
		c.Secret, secretHash = secret, auth.HashSecret(secret)
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, scopes, secret_hash, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, c.ID, c.Name, c.RedirectURIs, c.Scopes, secretHash, c.CreatedAt)
	return c, err
}

const oauthClientColumns = "id, name, redirect_uris, scopes, secret_hash IS NOT NULL, created_at, revoked_at"

func scanOAuthClient(row pgx.CollectableRow) (OAuthClient, error) {
	var c OAuthClient
	err := row.Scan(&c.ID, &c.Name, &c.RedirectURIs, &c.Scopes, &c.Confidential, &c.CreatedAt, &c.RevokedAt)
	return c, err
}

// ListOAuthClients lists every registered client, newest first.
func (s *Store) ListOAuthClients(ctx context.Context) ([]OAuthClient, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+oauthClientColumns+" FROM oauth_clients ORDER BY created_at DESC, id")
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanOAuthClient)
}

// ActiveOAuthClient returns a registered client that is not revoked; anything else is ok=false.
func (s *Store) ActiveOAuthClient(ctx context.Context, id string) (OAuthClient, bool, error) {
	c, err := queryOne(ctx, s, scanOAuthClient, errNoClient,
		"SELECT "+oauthClientColumns+" FROM oauth_clients WHERE id = $1 AND revoked_at IS NULL", id)
	if err == errNoClient {
		return OAuthClient{}, false, nil
	}
	return c, err == nil, err
}

var errNoClient = apperr.InvalidClient("Unknown or revoked client.")

// AuthenticateOAuthClient checks a client's credentials as the token and revocation endpoints
// take them: a public client sends its id alone, a confidential one its secret too.
func (s *Store) AuthenticateOAuthClient(ctx context.Context, id, secret string) (OAuthClient, error) {
	var (
		c    OAuthClient
		hash []byte
	)
	err := s.pool.QueryRow(ctx, "SELECT "+oauthClientColumns+", secret_hash FROM oauth_clients WHERE id = $1 AND revoked_at IS NULL", id).
		Scan(&c.ID, &c.Name, &c.RedirectURIs, &c.Scopes, &c.Confidential, &c.CreatedAt, &c.RevokedAt, &hash)
	if isNoRows(err) {
		return OAuthClient{}, errNoClient
	}
	if err != nil {
		return OAuthClient{}, err
	}
	switch {
	case c.Confidential && secret == "":
		return OAuthClient{}, apperr.InvalidClient("This client is confidential: authenticate with its secret (HTTP Basic or client_secret).")
	case c.Confidential && subtle.ConstantTimeCompare(auth.HashSecret(secret), hash) != 1:
		return OAuthClient{}, apperr.InvalidClient("Client authentication failed.")
	case !c.Confidential && secret != "":
		return OAuthClient{}, apperr.InvalidClient("This client is public: it has no secret to send.")
	}
	return c, nil
}

// RevokeOAuthClient revokes a client and every API key issued to it, in one transaction;
// revoking twice keeps the first time.
func (s *Store) RevokeOAuthClient(ctx context.Context, id string) (OAuthClient, error) {
	now := s.clock.Now()
	var (
		c       OAuthClient
		revoked []string
	)
	defer func() { s.forgetKeys(revoked...) }()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "UPDATE oauth_clients SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING "+oauthClientColumns, id, now)
		if err != nil {
			return err
		}
		if c, err = pgx.CollectExactlyOneRow(rows, scanOAuthClient); isNoRows(err) {
			return apperr.NotFound("OAuth client not found.")
		} else if err != nil {
			return err
		}
		rows, err = tx.Query(ctx, "UPDATE api_keys SET revoked_at = $2 WHERE oauth_client_id = $1 AND revoked_at IS NULL RETURNING id", id, now)
		if err != nil {
			return err
		}
		revoked, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return c, err
}
