package api

import (
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
)

const authErrKey = "mtk.auth_error"

// headerWorkspace selects the workspace of a JWT call.
const headerWorkspace = "X-Workspace-Id"

// headerAPIKey carries an API key for clients that cannot set Authorization.
const headerAPIKey = "x-api-key"

// credential returns the token of Authorization: Bearer or x-api-key.
func credential(c *fiber.Ctx) string {
	if h := strings.TrimSpace(c.Get(fiber.HeaderAuthorization)); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token)
		}
		return h
	}
	return strings.TrimSpace(c.Get(headerAPIKey))
}

// identify works out who is calling and puts the principal on the request. It never fails the
// request itself: a bad credential is kept for require, so that the rate limiter (which counts
// unauthenticated calls per client IP) runs for every /v3/ call.
func (s *server) identify(c *fiber.Ctx) error {
	p, err := s.authenticate(c)
	if p != nil {
		p.ClientIP = c.IP()
		auth.Set(c, p)
	}
	if err != nil {
		c.Locals(authErrKey, err)
	}
	return c.Next()
}

// credentialPresented reports whether the request carries a credential: a key or token in
// Authorization or x-api-key, or an order webhook's k.
func credentialPresented(c *fiber.Ctx) bool { return credential(c) != "" || c.Query("k") != "" }

// credentialRejected reports whether the request sent a credential that authentication refused
// (401): the rate limiter counts it against the IP but lets require answer 401.
func credentialRejected(c *fiber.Ctx) bool {
	err, _ := c.Locals(authErrKey).(error)
	e, ok := apperr.As(err)
	return ok && e.Status == fiber.StatusUnauthorized && credential(c) != ""
}

func (s *server) authenticate(c *fiber.Ctx) (*auth.Principal, error) {
	token := credential(c)
	switch {
	case token == "":
		return nil, apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "No credential provided: send Authorization: Bearer <API key or token>, or x-api-key.")
	case strings.HasPrefix(token, auth.APIKeyPrefix):
		return s.Keys.VerifyAPIKey(c.UserContext(), token)
	case strings.Count(token, ".") == 2:
		return s.authenticateJWT(c, token)
	default:
		return nil, apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Invalid API key.")
	}
}

func (s *server) authenticateJWT(c *fiber.Ctx, token string) (*auth.Principal, error) {
	login, err := auth.ParseJWT([]byte(s.Config.JWTSecret), token, s.Clock.Now())
	if err != nil {
		return nil, apperr.Unauthenticated(apperr.CodeInvalidToken, "Invalid or expired token.")
	}
	if err := s.Users.VerifyLoginToken(c.UserContext(), login); err != nil {
		return nil, err
	}
	userID := login.UserID
	p := &auth.Principal{Kind: auth.KindJWT, UserID: userID, Login: &login}
	ws := strings.TrimSpace(c.Get(headerWorkspace))
	if ws == "" {
		return p, nil
	}
	m, member, err := s.Users.Membership(c.UserContext(), userID, ws)
	if err != nil {
		return nil, err
	}
	if !member {
		return nil, apperr.Forbidden(apperr.CodeAccessDenied, "You are not a member of this workspace.")
	}
	p.WorkspaceID, p.Tier, p.Writer = ws, m.Tier, m.Writes()
	return p, nil
}

// workspaceRule says whether a route needs X-Workspace-Id with a JWT.
type workspaceRule int

const (
	// workspaceRequired: data routes (query, fields, objects) need the header with a JWT.
	workspaceRequired workspaceRule = iota
	// workspaceOptional: platform listings work across the user's workspaces without it.
	workspaceOptional
)

// authenticated returns the request's principal, or the error that identify kept.
func authenticated(c *fiber.Ctx) (*auth.Principal, error) {
	if err, ok := c.Locals(authErrKey).(error); ok {
		return nil, err
	}
	if p := auth.From(c); p != nil {
		return p, nil
	}
	return nil, apperr.Unauthenticated(apperr.CodeInvalidAPIKey, "Invalid API key.")
}

// require fails the request unless it is authenticated and holds scope.
func require(scope string, rule workspaceRule) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, err := authenticated(c)
		if err != nil {
			return err
		}
		if p.Kind == auth.KindJWT && p.WorkspaceID == "" && rule == workspaceRequired {
			return apperr.Missing("X-Workspace-Id header is required with a JWT on this route.",
				"X-Workspace-Id: required with a JWT on data routes")
		}
		if !p.Has(scope) {
			return apperr.Forbidden(apperr.CodeInsufficientScope, lacks(p, scope))
		}
		return c.Next()
	}
}

// lacks is the message of a 403 insufficient_scope: a key lacks the scope, a member's JWT the role.
func lacks(p *auth.Principal, scope string) string {
	if p.Kind == auth.KindJWT {
		return fmt.Sprintf("A workspace member may read but not write (%s): ask an owner or admin.", scope)
	}
	return fmt.Sprintf("This API key lacks the %s scope.", scope)
}

// workspaceIDs lists the workspaces the caller may see: the key's, the JWT's X-Workspace-Id, or,
// for a JWT without it, every workspace the user belongs to.
func (s *server) workspaceIDs(c *fiber.Ctx) ([]string, error) {
	p := auth.From(c)
	if p.WorkspaceID != "" {
		return []string{p.WorkspaceID}, nil
	}
	return s.Users.WorkspaceIDsOf(c.UserContext(), p.UserID)
}
