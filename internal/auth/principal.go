// Package auth holds who is calling: the Principal that authentication middleware puts on a
// request, and the scopes of the contract. Verifying credentials lives in api/ and platform/.
package auth

import (
	"slices"

	"github.com/gofiber/fiber/v2"
)

// The scopes of the spec.
const (
	ScopeTrackingRead  = "tracking:read"
	ScopeTrackingWrite = "tracking:write"
	ScopeDataRead      = "data:read"
	ScopeDataWrite     = "data:write"
)

// AllScopes lists every scope, in a stable order.
var AllScopes = []string{ScopeDataRead, ScopeDataWrite, ScopeTrackingRead, ScopeTrackingWrite}

// ScopeWords says what each scope lets a holder do, in the plain words that the OAuth consent
// page shows the person granting it.
var ScopeWords = map[string]string{
	ScopeDataRead:      "Read your projects, connections, sync status and ad metrics",
	ScopeDataWrite:     "Pause and activate your ads, ad sets and campaigns, and change their budgets",
	ScopeTrackingRead:  "Read your tracking containers and triggers, and decode tracking messages",
	ScopeTrackingWrite: "Change your tracking triggers, create tracking links and send tracking events",
}

// ValidScope reports whether s is one of AllScopes.
func ValidScope(s string) bool { return slices.Contains(AllScopes, s) }

// Kind is how a caller authenticated.
type Kind int

// The kinds of credential.
const (
	KindPublic Kind = iota // no credential (public tracking routes)
	KindAPIKey
	KindJWT
)

// Principal is the authenticated caller of one request.
type Principal struct {
	Kind        Kind
	WorkspaceID string      // empty for a JWT without X-Workspace-Id, and for public calls
	Tier        string      // the workspace's tier: default, growth, enterprise
	KeyID       string      // API keys
	UserID      string      // JWTs
	Login       *LoginToken // JWTs: the token, which logging out revokes
	Writer      bool        // JWTs: an owner or admin of WorkspaceID, who may write; a member reads
	Scopes      []string
	ClientIP    string
}

// WriteScopes are the scopes that write: a workspace member's JWT lacks them.
var WriteScopes = []string{ScopeDataWrite, ScopeTrackingWrite}

// Has reports whether the principal holds scope. A signed-in user (JWT) holds the read scopes in
// the workspaces they are a member of, and the write scopes where they are an owner or admin.
func (p *Principal) Has(scope string) bool {
	if p.Kind == KindJWT {
		return p.Writer || !slices.Contains(WriteScopes, scope)
	}
	return slices.Contains(p.Scopes, scope)
}

// CounterKey is the identity a rate limit counts against: the API key, the user in a workspace,
// or the client IP for public calls.
func (p *Principal) CounterKey() string {
	switch p.Kind {
	case KindAPIKey:
		return "key:" + p.KeyID
	case KindJWT:
		return "user:" + p.UserID + ":" + p.WorkspaceID
	default:
		return "ip:" + p.ClientIP
	}
}

const localsKey = "mtk.principal"

// Set stores p on the request.
func Set(c *fiber.Ctx, p *Principal) { c.Locals(localsKey, p) }

// From returns the request's principal, or nil before authentication ran.
func From(c *fiber.Ctx) *Principal {
	p, _ := c.Locals(localsKey).(*Principal)
	return p
}
