package api

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/api/consent"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/internal/ids"
	"mtk/platform"
)

// authRequest is an authorization request (RFC 6749 section 4.1.1) that passed every check.
type authRequest struct {
	client    platform.OAuthClient
	redirect  string
	state     string
	challenge string
	scopes    []string
	query     string // the request's own query string: the consent form posts back to it
}

// redirectError is a problem that RFC 6749 section 4.1.2.1 reports to the client, through its
// redirect URI, once that URI is known to be the client's.
type redirectError struct{ code, description string }

// maxState bounds the state that mtk carries back to the client.
const maxState = 1024

// authorizationRequest checks the query of GET and POST /oauth/authorize. A bad client_id or
// redirect_uri is an error (the page says so and never redirects: RFC 6749 section 4.1.2.1);
// any other problem is a redirectError for the client.
func (s *server) authorizationRequest(c *fiber.Ctx) (authRequest, *redirectError, error) {
	req := authRequest{query: string(c.Request().URI().QueryString())}
	q, err := parseParams(req.query)
	if err != nil {
		return req, nil, err
	}
	clientID, redirect := q.Get("client_id"), q.Get("redirect_uri")
	if clientID == "" || redirect == "" {
		return req, nil, apperr.Missing("The request lacks client_id or redirect_uri.")
	}
	client, ok, err := s.OAuth.ActiveOAuthClient(c.UserContext(), clientID)
	if err != nil {
		return req, nil, err
	}
	if !ok {
		return req, nil, apperr.Invalid("Unknown or revoked client_id.")
	}
	if !client.AllowsRedirect(redirect) {
		return req, nil, apperr.Invalid("redirect_uri is not one that this client registered.")
	}
	req.client, req.redirect, req.state = client, redirect, q.Get("state")
	switch rt := q.Get("response_type"); {
	case rt == "":
		return req, &redirectError{"invalid_request", "response_type is required."}, nil
	case rt != "code":
		return req, &redirectError{"unsupported_response_type", "response_type must be code."}, nil
	case len(req.state) > maxState:
		return req, &redirectError{"invalid_request", "state is longer than 1024 characters."}, nil
	case q.Get("code_challenge_method") != auth.PKCEMethod:
		return req, &redirectError{"invalid_request", "PKCE is required: code_challenge_method must be S256."}, nil
	case !auth.ValidChallenge(q.Get("code_challenge")):
		return req, &redirectError{"invalid_request", "code_challenge must be the S256 challenge: 43 characters of unpadded base64url."}, nil
	}
	req.challenge = q.Get("code_challenge")
	req.scopes = slices.Compact(slices.Sorted(slices.Values(strings.Fields(q.Get("scope")))))
	if len(req.scopes) == 0 {
		req.scopes = client.Scopes
	}
	for _, sc := range req.scopes {
		if !slices.Contains(client.Scopes, sc) {
			return req, &redirectError{"invalid_scope", "scope " + sc + " is not one this client may ask for."}, nil
		}
	}
	return req, nil, nil
}

// authorize serves the consent page (GET /oauth/authorize) and takes its form (POST): sign in,
// then approve for one workspace or deny. Every POST carries the CSRF token bound to the
// browser's cookie; approval then redirects to the client with a code.
func (s *server) authorize(c *fiber.Ctx) error {
	req, rerr, err := s.authorizationRequest(c)
	if err != nil {
		return err
	}
	if rerr != nil {
		return s.redirectBack(c, req, "error", rerr.code, "error_description", rerr.description)
	}
	if c.Method() == fiber.MethodGet {
		csrf := s.csrfToken(s.csrfNonce(c))
		return s.renderStep(c, req, consent.Page{Step: consent.StepSignIn, CSRF: csrf})
	}
	form, err := oauthForm(c)
	if err != nil {
		return err
	}
	nonce := c.Cookies(csrfCookie)
	csrf := s.csrfToken(nonce)
	if nonce == "" || !hmac.Equal([]byte(form.Get("csrf_token")), []byte(csrf)) {
		return apperr.Forbidden(apperr.CodeAccessDenied, "This form has expired or was not sent from this page. Go back to the platform and start again.")
	}
	switch form.Get("action") {
	case "deny":
		return s.redirectBack(c, req, "error", "access_denied", "error_description", "The user denied the request.")
	case "signin":
		return s.signIn(c, req, form, csrf)
	case "approve":
		return s.approve(c, req, form, csrf)
	default:
		return apperr.Invalid("Unknown form action.")
	}
}

// signIn checks the e-mail and password and shows the consent step, or the sign-in step again.
// The per-e-mail limit of login holds here too (its 429 is the error step).
func (s *server) signIn(c *fiber.Ctx, req authRequest, form url.Values, csrf string) error {
	email := strings.TrimSpace(form.Get("email"))
	user, _, err := s.checkPassword(c, email, form.Get("password"))
	if e, ok := apperr.As(err); ok && e.Code == apperr.CodeInvalidCredentials {
		return s.renderStep(c, req, consent.Page{Step: consent.StepSignIn, CSRF: csrf, Email: email, Error: "Incorrect e-mail or password."})
	}
	if err != nil {
		return err
	}
	managed, err := s.Users.ManagedWorkspaces(c.UserContext(), user.ID)
	if err != nil {
		return err
	}
	signIn, err := auth.IssueSignIn([]byte(s.Config.JWTSecret), user.ID, csrf, s.Clock.Now())
	if err != nil {
		return err
	}
	page := consent.Page{Step: consent.StepConsent, CSRF: csrf, Email: user.Email, SignIn: signIn}
	for _, w := range managed {
		page.Workspaces = append(page.Workspaces, consent.Workspace{ID: w.ID, Name: w.Name})
	}
	return s.renderStep(c, req, page)
}

// approve issues a code for the chosen workspace, which the signed-in person must manage.
func (s *server) approve(c *fiber.Ctx, req authRequest, form url.Values, csrf string) error {
	userID, err := auth.ParseSignIn([]byte(s.Config.JWTSecret), form.Get("signin"), csrf, s.Clock.Now())
	if err != nil {
		return s.renderStep(c, req, consent.Page{Step: consent.StepSignIn, CSRF: csrf, Error: "Your sign-in has expired: sign in again."})
	}
	ws := form.Get("workspace_id")
	ok, err := s.Users.Manages(c.UserContext(), userID, ws)
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Forbidden(apperr.CodeAccessDenied, "You are not an owner or admin of that workspace, so you cannot connect it.")
	}
	code, err := s.OAuth.IssueCode(c.UserContext(), platform.CodeGrant{ClientID: req.client.ID, WorkspaceID: ws, UserID: userID,
		RedirectURI: req.redirect, Scopes: req.scopes, Challenge: req.challenge})
	if err != nil {
		return err
	}
	return s.redirectBack(c, req, "code", code)
}

// redirectBack sends the browser to the client's redirect URI with params (name, value pairs),
// the request's state and this server as iss (RFC 9207), keeping the URI's own query.
func (s *server) redirectBack(c *fiber.Ctx, req authRequest, params ...string) error {
	u, err := url.Parse(req.redirect)
	if err != nil {
		return err
	}
	q := u.Query()
	for i := 0; i+1 < len(params); i += 2 {
		q.Set(params[i], params[i+1])
	}
	if req.state != "" {
		q.Set("state", req.state)
	}
	q.Set("iss", strings.TrimSuffix(s.Config.BaseURL, "/"))
	u.RawQuery = q.Encode()
	c.Set(fiber.HeaderCacheControl, "no-store")
	status := fiber.StatusFound
	if c.Method() == fiber.MethodPost {
		status = fiber.StatusSeeOther // the browser follows with a GET
	}
	return c.Redirect(u.String(), status)
}

// renderStep shows the sign-in or consent step of req's page.
func (s *server) renderStep(c *fiber.Ctx, req authRequest, p consent.Page) error {
	p.Client = req.client.Name
	p.Action = pathAuthorize + "?" + req.query
	for _, sc := range req.scopes {
		p.Scopes = append(p.Scopes, consent.Scope{Name: sc, Words: auth.ScopeWords[sc]})
	}
	return sendPage(c, fiber.StatusOK, p, formTarget(req.redirect))
}

// renderErrorPage shows the error step: the request cannot go on.
func renderErrorPage(c *fiber.Ctx, status int, message string) error {
	return sendPage(c, status, consent.Page{Step: consent.StepError, Error: message})
}

func sendPage(c *fiber.Ctx, status int, p consent.Page, formTargets ...string) error {
	body, err := consent.Render(p)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderContentSecurityPolicy, consent.CSP(formTargets...))
	c.Set(fiber.HeaderXFrameOptions, "DENY")
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	return c.Status(status).Send(body)
}

// formTarget is the CSP source of a redirect URI: its origin, or its private-use scheme.
func formTarget(redirect string) string {
	u, err := url.Parse(redirect)
	if err != nil {
		return ""
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		return u.Scheme + "://" + u.Host
	}
	return u.Scheme + ":"
}

// csrfCookie holds the browser's CSRF nonce. The form carries an HMAC of it (csrfToken): a
// page on another site can neither read the cookie nor compute the token, and any mtk server
// can check it without shared state.
const csrfCookie = "mtk_oauth_csrf"

// csrfNonce returns the browser's nonce, setting a new one when it has none. The cookie is Lax,
// so that it comes along when the platform sends the browser here.
func (s *server) csrfNonce(c *fiber.Ctx) string {
	if n := c.Cookies(csrfCookie); n != "" && len(n) <= 64 {
		return n
	}
	n := ids.Random(16)
	c.Cookie(&fiber.Cookie{Name: csrfCookie, Value: n, Path: pathAuthorize, HTTPOnly: true, SameSite: fiber.CookieSameSiteLaxMode,
		Secure: strings.HasPrefix(s.Config.BaseURL, "https://")})
	return n
}

// csrfToken is the form's token for nonce.
func (s *server) csrfToken(nonce string) string {
	m := hmac.New(sha256.New, []byte(s.Config.JWTSecret))
	m.Write([]byte("mtk oauth csrf\x00" + nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
