package api

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// requireManager lets through a signed-in owner or admin (a JWT with X-Workspace-Id) of the
// workspace: connected platforms are theirs to see and cut off. An API key cannot, not even the
// platform's own: it revokes itself with POST /oauth/revoke.
func (s *server) requireManager(c *fiber.Ctx) error {
	if err, ok := c.Locals(authErrKey).(error); ok {
		return err
	}
	p := auth.From(c)
	switch {
	case p == nil:
		return apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Invalid API key.")
	case p.Kind != auth.KindJWT:
		return apperr.Forbidden(apperr.CodeAccessDenied, "Connected platforms are managed by a signed-in owner or admin (a login JWT), not with an API key.")
	case p.WorkspaceID == "":
		return apperr.Missing("X-Workspace-Id header is required with a JWT on this route.", "X-Workspace-Id: required")
	}
	ok, err := s.Users.Manages(c.UserContext(), p.UserID, p.WorkspaceID)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Forbidden(apperr.CodeAccessDenied, "Only the workspace's owners and admins manage connected platforms.")
	}
	return c.Next()
}

// grant is a connected platform: an API key a client holds through OAuth.
type grant struct {
	ID         string     `json:"id"`
	ClientID   string     `json:"client_id"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes"`
	Prefix     string     `json:"prefix"`
	GrantedBy  *string    `json:"granted_by"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

func grantOf(k platform.APIKey) grant {
	return grant{ID: k.ID, ClientID: *k.OAuthClientID, Name: k.Name, Scopes: k.Scopes, Prefix: k.Prefix,
		GrantedBy: k.GrantedBy, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

// listGrants lists the workspace's connected platforms (GET /v3/oauth/grants).
func (s *server) listGrants(c *fiber.Ctx) error {
	keys, err := s.OAuth.ListGrants(c.UserContext(), workspaceOf(c))
	if err != nil {
		return err
	}
	out := make([]grant, len(keys))
	for i, k := range keys {
		out[i] = grantOf(k)
	}
	return c.JSON(out)
}

// revokeGrant disconnects a platform: its key stops working (DELETE /v3/oauth/grants/{id}).
func (s *server) revokeGrant(c *fiber.Ctx) error {
	k, err := s.OAuth.RevokeGrant(c.UserContext(), workspaceOf(c), c.Params("grant_id"))
	if err != nil {
		return err
	}
	return c.JSON(grantOf(k))
}
