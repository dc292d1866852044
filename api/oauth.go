package api

import (
	"encoding/base64"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// OAuth 2.0 for third-party platforms: the authorization code grant with PKCE (RFC 6749, RFC
// 7636), whose access token is an ordinary API key of the workspace that the person chose;
// revocation (RFC 7009) and metadata (RFC 8414). The protocol is written here rather than with
// an OAuth server library: it is this one grant, its token must be an mtk API key created in
// the transaction that spends the code, and a library such as fosite would bring its own
// storage model and some seventy modules for it. docs/oauth.md ("Why hand-written") says why in
// full.

// The OAuth endpoints' paths.
const (
	pathAuthorize = "/oauth/authorize"
	pathToken     = "/oauth/token"
	pathRevoke    = "/oauth/revoke"
	pathMetadata  = "/.well-known/oauth-authorization-server"
)

// oauthRoutes registers the authorization server's endpoints, limited per client IP like the
// other public routes, and the workspace's listing of its connected platforms under /v3.
func (s *server) oauthRoutes(app *fiber.App, v3 fiber.Router, public fiber.Handler) {
	app.Get(pathMetadata, s.oauthMetadata)
	app.Get(pathAuthorize, public, s.authorize) // their errors' styles: endpointStyles
	app.Post(pathAuthorize, public, s.authorize)
	app.Post(pathToken, public, s.token)
	app.Post(pathRevoke, public, s.revoke)
	v3.Get("/oauth/grants", s.requireManager, s.listGrants)
	v3.Delete("/oauth/grants/:grant_id", s.requireManager, s.revokeGrant)
}

// oauthMetadata answers RFC 8414's authorization server metadata.
func (s *server) oauthMetadata(c *fiber.Ctx) error {
	base := strings.TrimSuffix(s.Config.BaseURL, "/")
	methods := []string{"none", "client_secret_basic", "client_secret_post"}
	return c.JSON(fiber.Map{
		"issuer":                                         base,
		"authorization_endpoint":                         base + pathAuthorize,
		"token_endpoint":                                 base + pathToken,
		"revocation_endpoint":                            base + pathRevoke,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code"},
		"code_challenge_methods_supported":               []string{auth.PKCEMethod},
		"token_endpoint_auth_methods_supported":          methods,
		"revocation_endpoint_auth_methods_supported":     methods,
		"scopes_supported":                               auth.AllScopes,
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          base + "/docs",
	})
}

// oauthErrorCodes maps the codes of errors raised elsewhere (decoding, the rate limiter, a
// store) to RFC 6749's; the OAuth codes themselves pass through.
var oauthErrorCodes = map[string]string{
	apperr.CodeInvalidParameter:   "invalid_request",
	apperr.CodeMissingParameter:   "invalid_request",
	apperr.CodeResourceNotFound:   "invalid_request",
	apperr.CodeInternal:           "server_error",
	apperr.CodeServiceUnavailable: "temporarily_unavailable",
}

// renderOAuthError writes e as RFC 6749 section 5.2 does, with the request id (invalid_client's
// Basic challenge is errorHandler's, with every 401's).
func renderOAuthError(c *fiber.Ctx, e *apperr.Error) error {
	code := e.Code
	if mapped, ok := oauthErrorCodes[code]; ok {
		code = mapped
	}
	if code == "invalid_request" {
		c.Status(fiber.StatusBadRequest) // RFC 6749 gives invalid_request 400, whatever raised it
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"error": code, "error_description": e.Message, "request_id": requestID(c)})
}

// oauthForm reads an application/x-www-form-urlencoded body (the only encoding RFC 6749 gives the
// token and revocation endpoints).
func oauthForm(c *fiber.Ctx) (url.Values, error) {
	if !isForm(c) {
		return nil, apperr.Invalid("Send the parameters as application/x-www-form-urlencoded.")
	}
	return parseParams(string(c.Body()))
}

// parseParams decodes form or query parameters, refusing any given twice (RFC 6749 section 3.1).
func parseParams(raw string) (url.Values, error) {
	v, err := url.ParseQuery(raw)
	if err != nil {
		return nil, apperr.Invalid("The parameters are not valid form encoding.")
	}
	for name, values := range v {
		if len(values) > 1 {
			return nil, apperr.Invalid("Parameter " + name + " is given more than once.")
		}
	}
	return v, nil
}

// requiredParams returns the named parameters, or invalid_request naming those missing.
func requiredParams(v url.Values, names ...string) ([]string, error) {
	out := make([]string, len(names))
	var missing []string
	for i, n := range names {
		if out[i] = v.Get(n); out[i] == "" {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		return nil, apperr.Missing("Missing parameter: "+strings.Join(missing, ", ")+".", missing...)
	}
	return out, nil
}

// oauthClient authenticates the calling client: HTTP Basic (client_secret_basic), or client_id
// with client_secret in the body (client_secret_post), or client_id alone for a public client.
func (s *server) oauthClient(c *fiber.Ctx, form url.Values) (platform.OAuthClient, error) {
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if h := c.Get(fiber.HeaderAuthorization); h != "" {
		user, pass, ok := basicCredentials(h)
		switch {
		case !ok:
			return platform.OAuthClient{}, apperr.InvalidClient("Malformed HTTP Basic client credentials.")
		case secret != "":
			return platform.OAuthClient{}, apperr.Invalid("Authenticate the client one way: HTTP Basic or client_secret, not both.")
		case id != "" && id != user:
			return platform.OAuthClient{}, apperr.Invalid("client_id differs from the HTTP Basic credentials'.")
		}
		id, secret = user, pass
	}
	if id == "" {
		return platform.OAuthClient{}, apperr.InvalidClient("Send client_id (or HTTP Basic client credentials).")
	}
	return s.OAuth.AuthenticateOAuthClient(c.UserContext(), id, secret)
}

// basicCredentials decodes an Authorization: Basic header; RFC 6749 section 2.3.1 form-encodes
// the id and secret inside it.
func basicCredentials(h string) (user, pass string, ok bool) {
	scheme, encoded, found := strings.Cut(h, " ")
	if !found || !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(encoded))
	if err != nil {
		return "", "", false
	}
	u, p, found := strings.Cut(string(raw), ":")
	if !found {
		return "", "", false
	}
	if user, err = url.QueryUnescape(u); err != nil {
		return "", "", false
	}
	if pass, err = url.QueryUnescape(p); err != nil {
		return "", "", false
	}
	if textReason([]byte(user)) != "" || textReason([]byte(pass)) != "" {
		return "", "", false // the header is text, what it encodes must be too
	}
	return user, pass, true
}

// tokenResponse is RFC 6749 section 5.1's answer, with the workspace the key belongs to. The key
// does not expire, so there is no expires_in, and no refresh token.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	Scope       string `json:"scope"`
	WorkspaceID string `json:"workspace_id"`
}

// clientRequest reads a token or revocation request: its form and the client it authenticates.
func (s *server) clientRequest(c *fiber.Ctx) (url.Values, platform.OAuthClient, error) {
	form, err := oauthForm(c)
	if err != nil {
		return nil, platform.OAuthClient{}, err
	}
	client, err := s.oauthClient(c, form)
	return form, client, err
}

// token redeems an authorization code for an API key (POST /oauth/token).
func (s *server) token(c *fiber.Ctx) error {
	form, client, err := s.clientRequest(c)
	if err != nil {
		return err
	}
	switch gt := form.Get("grant_type"); gt {
	case "":
		return apperr.Missing("Missing parameter: grant_type.", "grant_type")
	case "authorization_code":
	default:
		return &apperr.Error{Status: fiber.StatusBadRequest, Type: apperr.TypeValidation, Code: apperr.CodeUnsupportedGrantType,
			Message: "grant_type " + gt + " is not supported: use authorization_code."}
	}
	p, err := requiredParams(form, "code", "redirect_uri", "code_verifier")
	if err != nil {
		return err
	}
	key, err := s.OAuth.RedeemCode(c.UserContext(), platform.Redemption{Client: client, Code: p[0], RedirectURI: p[1], Verifier: p[2]})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderPragma, "no-cache")
	return c.JSON(tokenResponse{AccessToken: key.Token, TokenType: "Bearer", Scope: strings.Join(key.Scopes, " "), WorkspaceID: key.WorkspaceID})
}

// revoke revokes an access token that was issued to the calling client (POST /oauth/revoke, RFC
// 7009): 200 with no body, also for a token that is unknown or revoked already.
func (s *server) revoke(c *fiber.Ctx) error {
	form, client, err := s.clientRequest(c)
	if err != nil {
		return err
	}
	p, err := requiredParams(form, "token")
	if err != nil {
		return err
	}
	if err := s.OAuth.RevokeOAuthToken(c.UserContext(), client, p[0]); err != nil {
		return err
	}
	c.Status(fiber.StatusOK) // no body: SendStatus would write "OK"
	return nil
}
