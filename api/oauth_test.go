package api_test

import (
	"context"
	"encoding/base64"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/oauth2"

	"mtk/api"
	"mtk/internal/auth"
	"mtk/platform"
)

// The platform of these tests: where it receives codes.
const platformCallback = "https://platform.example/oauth/callback?source=mtk"

// oauthFlow is one browser's way through the consent page: its CSRF cookie and the page's form
// token, as a browser would carry them.
type oauthFlow struct {
	e        *env
	client   platform.OAuthClient
	query    url.Values // the authorization request
	verifier string
	cookie   string
	csrf     string
	signIn   string
}

// newClient registers a platform that may ask for scopes.
func (e *env) newClient(confidential bool, scopes ...string) platform.OAuthClient {
	e.t.Helper()
	c, err := e.store.OAuth.CreateOAuthClient(context.Background(), platform.OAuthClientInput{Name: "Acme Reports",
		RedirectURIs: []string{platformCallback, "http://127.0.0.1:9999/cb"}, Scopes: scopes, Confidential: confidential})
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

// startFlow builds an authorization request for client with a fresh verifier (made by
// golang.org/x/oauth2, not by mtk), changed by edit.
func (e *env) startFlow(client platform.OAuthClient, edit func(url.Values)) *oauthFlow {
	f := &oauthFlow{e: e, client: client, verifier: oauth2.GenerateVerifier()}
	f.query = url.Values{"response_type": {"code"}, "client_id": {client.ID}, "redirect_uri": {platformCallback},
		"scope": {auth.ScopeDataRead}, "state": {"st-" + f.verifier[:8]}, "code_challenge_method": {"S256"},
		"code_challenge": {oauth2.S256ChallengeFromVerifier(f.verifier)}}
	if edit != nil {
		edit(f.query)
	}
	return f
}

var (
	csrfField   = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)
	signInField = regexp.MustCompile(`name="signin" value="([^"]+)"`)
	cookieValue = regexp.MustCompile(api.CSRFCookie + `=([^;]+)`)
)

// open loads the consent page (GET), keeping its cookie and form token.
func (f *oauthFlow) open() response {
	f.e.t.Helper()
	r := f.e.do("GET", api.PathAuthorize+"?"+f.query.Encode(), nil)
	if m := cookieValue.FindStringSubmatch(r.Header.Get("Set-Cookie")); m != nil {
		f.cookie = m[1]
	}
	if m := csrfField.FindSubmatch(r.Body); m != nil {
		f.csrf = string(m[1])
	}
	return r
}

// post submits the page's form with fields (the CSRF token unless fields set csrf_token).
func (f *oauthFlow) post(fields url.Values) response {
	f.e.t.Helper()
	if _, ok := fields["csrf_token"]; !ok {
		fields.Set("csrf_token", f.csrf)
	}
	headers := []string{"Content-Type", "application/x-www-form-urlencoded"}
	if f.cookie != "" {
		headers = append(headers, "Cookie", api.CSRFCookie+"="+f.cookie)
	}
	r := f.e.do("POST", api.PathAuthorize+"?"+f.query.Encode(), fields.Encode(), headers...)
	if m := signInField.FindSubmatch(r.Body); m != nil {
		f.signIn = string(m[1])
	}
	return r
}

// signInAs signs in on the page and expects the consent step.
func (f *oauthFlow) signInAs(email, password string) response {
	f.e.t.Helper()
	r := f.post(url.Values{"action": {"signin"}, "email": {email}, "password": {password}})
	if r.Status != 200 || !strings.Contains(string(r.Body), `data-step="consent"`) {
		f.e.t.Fatalf("sign in: %d %s", r.Status, r.Body)
	}
	return r
}

// approve approves for workspace and returns the redirect's query.
func (f *oauthFlow) approve(workspaceID string) url.Values {
	f.e.t.Helper()
	r := f.post(url.Values{"action": {"approve"}, "signin": {f.signIn}, "workspace_id": {workspaceID}})
	return redirected(f.e.t, r, 303)
}

// redirected checks that r sends the browser to the platform's callback and returns the query.
func redirected(t *testing.T, r response, status int) url.Values {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d redirect: %s", r.Status, status, r.Body)
	}
	loc, err := url.Parse(r.Header.Get("Location"))
	if err != nil || loc.Host != "platform.example" || loc.Path != "/oauth/callback" {
		t.Fatalf("Location %q is not the registered redirect URI", r.Header.Get("Location"))
	}
	q := loc.Query()
	if q.Get("source") != "mtk" || q.Get("iss") != "https://mtk.example" {
		t.Fatalf("redirect lost the URI's own query or iss: %s", loc)
	}
	return q
}

// code runs the whole consent for tn's workspace and returns the code.
func (f *oauthFlow) code(tn tenant) string {
	f.e.t.Helper()
	if r := f.open(); r.Status != 200 {
		f.e.t.Fatalf("consent page: %d %s", r.Status, r.Body)
	}
	f.signInAs(tn.user.Email, tn.password)
	q := f.approve(tn.ws.ID)
	if q.Get("state") != f.query.Get("state") || q.Get("code") == "" {
		f.e.t.Fatalf("redirect %v lacks the code or the state", q)
	}
	return q.Get("code")
}

// exchange posts a token request with fields over the defaults for f's code.
func (f *oauthFlow) exchange(code string, edit func(url.Values), headers ...string) response {
	f.e.t.Helper()
	form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {platformCallback},
		"client_id": {f.client.ID}, "code_verifier": {f.verifier}}
	if f.client.Confidential {
		form.Set("client_secret", f.client.Secret)
	}
	if edit != nil {
		edit(form)
	}
	return f.e.do("POST", api.PathToken, form.Encode(), append([]string{"Content-Type", "application/x-www-form-urlencoded"}, headers...)...)
}

// wantOAuthError checks RFC 6749's error body.
func wantOAuthError(t *testing.T, r response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	body := r.JSON(t)
	if body["error"] != code || body["error_description"] == "" || body["request_id"] != r.Header.Get("X-Request-Id") {
		t.Fatalf("want error %s with a description and the request id: %s", code, r.Body)
	}
	if r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("Cache-Control %q", r.Header.Get("Cache-Control"))
	}
}

// TestOAuthFlow: consent, code, token; the key is the workspace's, works within its scopes and
// nowhere else, is listed as a connected platform, and stops working once revoked.
func TestOAuthFlow(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	other := e.newTenant("rival", platform.TierDefault, "act_222")
	e.seedFacts(tn)
	client := e.newClient(true, auth.ScopeDataRead, auth.ScopeTrackingRead)
	f := e.startFlow(client, nil)

	page := f.open()
	csp := page.Header.Get("Content-Security-Policy")
	for _, want := range []string{"frame-ancestors 'none'", "form-action 'self' https://platform.example", "default-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if page.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(page.Header.Get("Set-Cookie"), "HttpOnly") ||
		!strings.Contains(string(page.Body), "Acme Reports") || !strings.Contains(string(page.Body), auth.ScopeWords[auth.ScopeDataRead]) ||
		strings.Contains(string(page.Body), "<script") {
		t.Fatalf("consent page: %v\n%s", page.Header, page.Body)
	}
	consentStep := string(f.signInAs(tn.user.Email, tn.password).Body)
	if !strings.Contains(consentStep, tn.ws.ID) || strings.Contains(consentStep, other.ws.ID) {
		t.Fatalf("the consent step must offer the user's workspaces only:\n%s", consentStep)
	}
	code := f.approve(tn.ws.ID).Get("code")

	r := f.exchange(code, nil)
	if r.Status != 200 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %v %s", r.Status, r.Header, r.Body)
	}
	tok := r.JSON(t)
	key, _ := tok["access_token"].(string)
	if !auth.LooksLikeAPIKey(key) || tok["token_type"] != "Bearer" || tok["scope"] != auth.ScopeDataRead || tok["workspace_id"] != tn.ws.ID {
		t.Fatalf("token answer %s", r.Body)
	}
	query := map[string]any{"project_id": tn.project.ID, "fields": []string{"spend"}, "time": map[string]string{"start": "2026-03-01", "end": "2026-03-08"}}
	if r := e.do("POST", "/v3/query", query, bearer(key)...); r.Status != 200 {
		t.Fatalf("the issued key on /v3/query: %d %s", r.Status, r.Body)
	}
	// Within its scopes only (it asked for data:read although the client may have tracking:read),
	// and within its workspace only.
	wantError(t, e.do("POST", "/v3/tracking/links", map[string]any{"url": "https://shop.example"}, bearer(key)...), 403, "authorization_error", "insufficient_scope")
	query["project_id"] = other.project.ID
	if r := e.do("POST", "/v3/query", query, bearer(key)...); r.Status != 403 && r.Status != 404 {
		t.Fatalf("another workspace's project: %d %s", r.Status, r.Body)
	}

	// The owner sees the platform among the workspace's keys, marked, and as a grant.
	keys, err := e.store.Keys.ListAPIKeys(context.Background(), tn.ws.ID)
	if err != nil {
		t.Fatal(err)
	}
	var marked int
	for _, k := range keys {
		if k.OAuthClientID != nil && *k.OAuthClientID == client.ID && k.Name == "Acme Reports" && *k.GrantedBy == tn.user.ID {
			marked++
		}
	}
	if marked != 1 {
		t.Fatalf("want one key marked as issued to %s: %+v", client.ID, keys)
	}
	jwt := e.login(tn)
	grants := e.do("GET", "/v3/oauth/grants", nil, append(bearer(jwt), api.HeaderWorkspace, tn.ws.ID)...).List(t)
	if len(grants) != 1 || grants[0]["client_id"] != client.ID {
		t.Fatalf("grants %v", grants)
	}

	// RFC 7009: revoking answers 200, and the key stops working at once.
	rv := e.do("POST", api.PathRevoke, url.Values{"token": {key}, "client_id": {client.ID}, "client_secret": {client.Secret}}.Encode(),
		"Content-Type", "application/x-www-form-urlencoded")
	if rv.Status != 200 || len(rv.Body) != 0 {
		t.Fatalf("revoke: %d %q", rv.Status, rv.Body)
	}
	wantError(t, e.do("POST", "/v3/query", query, bearer(key)...), 401, "authentication_error", "invalid_api_key")
	if g := e.do("GET", "/v3/oauth/grants", nil, append(bearer(jwt), api.HeaderWorkspace, tn.ws.ID)...).List(t); len(g) != 0 {
		t.Fatalf("a revoked key is still a connected platform: %v", g)
	}
}

// TestOAuthTokenErrors: every refusal of the token endpoint is RFC 6749's, and spends nothing.
func TestOAuthTokenErrors(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	public := e.newClient(false, auth.ScopeDataRead)
	confidential := e.newClient(true, auth.ScopeDataRead)

	f := e.startFlow(public, nil)
	code := f.code(tn)
	other := oauth2.GenerateVerifier()
	wantOAuthError(t, f.exchange(code, func(v url.Values) { v.Set("code_verifier", other) }), 400, "invalid_grant")
	wantOAuthError(t, f.exchange(code, func(v url.Values) { v.Del("code_verifier") }), 400, "invalid_request")
	wantOAuthError(t, f.exchange(code, func(v url.Values) { v.Set("redirect_uri", "http://127.0.0.1:9999/cb") }), 400, "invalid_grant")
	wantOAuthError(t, f.exchange(code, func(v url.Values) { v.Set("client_id", confidential.ID) }), 401, "invalid_client")
	wantOAuthError(t, f.exchange(code, func(v url.Values) {
		v.Set("client_id", confidential.ID)
		v.Set("client_secret", confidential.Secret)
	}), 400, "invalid_grant") // another client's code
	wantOAuthError(t, f.exchange(code, func(v url.Values) { v.Set("grant_type", "client_credentials") }), 400, "unsupported_grant_type")
	wantOAuthError(t, f.exchange(code, func(v url.Values) { v.Set("client_secret", "mtk_secret_x") }), 401, "invalid_client")
	wantOAuthError(t, f.exchange("mtk_code_unknown", nil), 400, "invalid_grant")
	r := e.do("POST", api.PathToken, `{"grant_type":"authorization_code"}`)
	wantOAuthError(t, r, 400, "invalid_request")
	wantOAuthError(t, e.do("POST", api.PathToken, "grant_type=authorization_code&grant_type=authorization_code&client_id="+public.ID,
		"Content-Type", "application/x-www-form-urlencoded"), 400, "invalid_request")

	// None of that spent the code; the right request redeems it once.
	first := f.exchange(code, nil)
	if first.Status != 200 {
		t.Fatalf("token after refusals: %d %s", first.Status, first.Body)
	}
	key := first.JSON(t)["access_token"].(string)
	if r := e.do("GET", "/v3/projects", nil, bearer(key)...); r.Status != 200 {
		t.Fatalf("the key: %d %s", r.Status, r.Body)
	}
	// Reused code: refused, and the key it produced is revoked (RFC 6749 section 4.1.2).
	wantOAuthError(t, f.exchange(code, nil), 400, "invalid_grant")
	wantLegacy(t, e.do("GET", "/v3/projects", nil, bearer(key)...), 401, "unauthorized")

	// Expired code: 60 seconds.
	g := e.startFlow(public, nil)
	late := g.code(tn)
	e.clock.Advance(platform.CodeLifetime)
	wantOAuthError(t, g.exchange(late, nil), 400, "invalid_grant")

	// A confidential client authenticates with HTTP Basic too; a wrong secret is 401 with a
	// Basic challenge.
	h := e.startFlow(confidential, nil)
	c := h.code(tn)
	noSecret := func(v url.Values) { v.Del("client_secret"); v.Del("client_id") }
	wrong := h.exchange(c, noSecret, "Authorization", "Basic "+basic(confidential.ID, "mtk_secret_wrong"))
	wantOAuthError(t, wrong, 401, "invalid_client")
	if wrong.Header.Get("WWW-Authenticate") == "" {
		t.Fatal("invalid_client without WWW-Authenticate")
	}
	if r := h.exchange(c, noSecret, "Authorization", "Basic "+basic(confidential.ID, confidential.Secret)); r.Status != 200 {
		t.Fatalf("Basic: %d %s", r.Status, r.Body)
	}
}

func basic(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(secret)))
}

// TestOAuthAuthorizeErrors: what never redirects (an unknown client or redirect URI, a forged
// form), what redirects with error= (RFC 6749 section 4.1.2.1), and what the page refuses.
func TestOAuthAuthorizeErrors(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	rival := e.newTenant("rival", platform.TierDefault, "act_222")
	client := e.newClient(false, auth.ScopeDataRead)

	page := func(r response, status int, words string) {
		t.Helper()
		if r.Status != status || r.Header.Get("Location") != "" || !strings.Contains(string(r.Body), `data-step="error"`) ||
			!strings.Contains(string(r.Body), words) {
			t.Fatalf("want a %d error page saying %q, no redirect: %d %v\n%s", status, words, r.Status, r.Header, r.Body)
		}
	}
	// Never redirect to what the client did not register.
	page(e.startFlow(client, func(q url.Values) { q.Set("client_id", "oac_unknown") }).open(), 400, "Unknown or revoked client_id")
	page(e.startFlow(client, func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") }).open(), 400, "redirect_uri")
	page(e.startFlow(client, func(q url.Values) { q.Del("redirect_uri") }).open(), 400, "redirect_uri")
	page(e.do("GET", api.PathAuthorize+"?client_id="+client.ID+"&client_id="+client.ID, nil), 400, "more than once")

	// Redirect with error= once the redirect URI is the client's.
	for _, c := range []struct {
		name, code string
		edit       func(url.Values)
	}{
		{"scope escalation", "invalid_scope", func(q url.Values) { q.Set("scope", "data:read data:write") }},
		{"no PKCE", "invalid_request", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }},
		{"plain PKCE", "invalid_request", func(q url.Values) { q.Set("code_challenge_method", "plain") }},
		{"bad challenge", "invalid_request", func(q url.Values) { q.Set("code_challenge", "short") }},
		{"token flow", "unsupported_response_type", func(q url.Values) { q.Set("response_type", "token") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := e.startFlow(client, c.edit)
			q := redirected(t, f.open(), 302)
			if q.Get("error") != c.code || q.Get("error_description") == "" || q.Get("state") != f.query.Get("state") || q.Get("code") != "" {
				t.Fatalf("redirect %v, want error %s with the state", q, c.code)
			}
		})
	}

	// CSRF: a form without the token, or without the cookie, or with another browser's token.
	f := e.startFlow(client, nil)
	f.open()
	page(f.post(url.Values{"action": {"signin"}, "email": {tn.user.Email}, "password": {tn.password}, "csrf_token": {""}}), 403, "expired")
	cookie := f.cookie
	f.cookie = ""
	page(f.post(url.Values{"action": {"signin"}, "email": {tn.user.Email}, "password": {tn.password}}), 403, "expired")
	g := e.startFlow(client, nil)
	g.open()
	f.cookie = cookie
	page(f.post(url.Values{"action": {"signin"}, "email": {tn.user.Email}, "password": {tn.password}, "csrf_token": {g.csrf}}), 403, "expired")

	// A wrong password shows the sign-in step again.
	wrong := f.post(url.Values{"action": {"signin"}, "email": {tn.user.Email}, "password": {"nope"}})
	if wrong.Status != 200 || !strings.Contains(string(wrong.Body), `data-step="signin"`) || !strings.Contains(string(wrong.Body), "Incorrect e-mail or password") {
		t.Fatalf("wrong password: %d %s", wrong.Status, wrong.Body)
	}
	// Another workspace than the user's own: refused on the page, no code.
	f.signInAs(tn.user.Email, tn.password)
	page(f.post(url.Values{"action": {"approve"}, "signin": {f.signIn}, "workspace_id": {rival.ws.ID}}), 403, "not an owner or admin")
	// A sign-in token is bound to its browser: another browser's cookie refuses it.
	g.signInAs(tn.user.Email, tn.password)
	stolen := f.post(url.Values{"action": {"approve"}, "signin": {g.signIn}, "workspace_id": {tn.ws.ID}})
	if !strings.Contains(string(stolen.Body), `data-step="signin"`) || stolen.Header.Get("Location") != "" {
		t.Fatalf("another browser's sign-in was accepted: %d %s", stolen.Status, stolen.Body)
	}
	// A sign-in lasts ten minutes.
	f.signInAs(tn.user.Email, tn.password)
	e.clock.Advance(auth.SignInLifetime)
	expired := f.post(url.Values{"action": {"approve"}, "signin": {f.signIn}, "workspace_id": {tn.ws.ID}})
	if !strings.Contains(string(expired.Body), "Your sign-in has expired") || expired.Header.Get("Location") != "" {
		t.Fatalf("expired sign-in: %d %s", expired.Status, expired.Body)
	}
	// Deny, before or after signing in, sends access_denied with the state.
	q := redirected(t, f.post(url.Values{"action": {"deny"}}), 303)
	if q.Get("error") != "access_denied" || q.Get("state") != f.query.Get("state") || q.Get("code") != "" {
		t.Fatalf("deny: %v", q)
	}
}

// TestOAuthMembersCannotGrant: a member (not owner or admin) is offered no workspace and cannot
// approve for theirs.
func TestOAuthMembersCannotGrant(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	member, err := e.store.Users.CreateUser(context.Background(), "member@example.com", "Member", "member-password", tn.ws.ID, platform.RoleMember)
	if err != nil {
		t.Fatal(err)
	}
	f := e.startFlow(e.newClient(false, auth.ScopeDataRead), nil)
	f.open()
	body := string(f.signInAs(member.Email, "member-password").Body)
	if strings.Contains(body, `name="workspace_id"`) || !strings.Contains(body, "not an owner or admin of any workspace") {
		t.Fatalf("a member was offered a workspace:\n%s", body)
	}
	r := f.post(url.Values{"action": {"approve"}, "signin": {f.signIn}, "workspace_id": {tn.ws.ID}})
	if r.Status != 403 || r.Header.Get("Location") != "" {
		t.Fatalf("a member approved: %d %s", r.Status, r.Body)
	}
	// Nor may a member list or revoke connected platforms.
	memberJWT := e.login(tenant{user: member, password: "member-password"})
	wantError(t, e.do("GET", "/v3/oauth/grants", nil, append(bearer(memberJWT), api.HeaderWorkspace, tn.ws.ID)...), 403, "authorization_error", "access_denied")
}

// TestOAuthRevocation: RFC 7009 from the platform, a grant revoked by the owner, and a revoked
// client, each stop the key; other clients' tokens and ordinary keys are not the platform's.
func TestOAuthRevocation(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	client := e.newClient(false, auth.ScopeDataRead)
	other := e.newClient(false, auth.ScopeDataRead)
	issue := func() string {
		f := e.startFlow(client, nil)
		r := f.exchange(f.code(tn), nil)
		if r.Status != 200 {
			t.Fatalf("token: %d %s", r.Status, r.Body)
		}
		return r.JSON(t)["access_token"].(string)
	}
	works := func(key string) bool { return e.do("GET", "/v3/projects", nil, bearer(key)...).Status == 200 }
	revoke := func(token, clientID string) response {
		return e.do("POST", api.PathRevoke, url.Values{"token": {token}, "client_id": {clientID}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	}

	key := issue()
	wantOAuthError(t, revoke(key, other.ID), 400, "unauthorized_client")
	wantOAuthError(t, revoke(tn.readKey, client.ID), 400, "unauthorized_client")
	if !works(key) || !works(tn.readKey) {
		t.Fatal("a refused revocation revoked")
	}
	if r := revoke("mtk_live_not-a-key", client.ID); r.Status != 200 {
		t.Fatalf("RFC 7009: an invalid token is 200, got %d %s", r.Status, r.Body)
	}
	for range 2 { // revoked, then already revoked: both 200
		if r := revoke(key, client.ID); r.Status != 200 || works(key) {
			t.Fatalf("revoke: %d %s", r.Status, r.Body)
		}
	}
	wantOAuthError(t, e.do("POST", api.PathRevoke, url.Values{"client_id": {client.ID}}.Encode(), "Content-Type", "application/x-www-form-urlencoded"), 400, "invalid_request")

	// The owner disconnects the platform; an API key may not.
	key = issue()
	jwt := e.login(tn)
	ws := []string{api.HeaderWorkspace, tn.ws.ID}
	grants := e.do("GET", "/v3/oauth/grants", nil, append(bearer(jwt), ws...)...).List(t)
	if len(grants) != 1 {
		t.Fatalf("grants %v", grants)
	}
	id := grants[0]["id"].(string)
	wantError(t, e.do("DELETE", "/v3/oauth/grants/"+id, nil, bearer(tn.readKey)...), 403, "authorization_error", "access_denied")
	wantError(t, e.do("DELETE", "/v3/oauth/grants/key_unknown", nil, append(bearer(jwt), ws...)...), 404, "not_found_error", "resource_not_found")
	wantError(t, e.do("GET", "/v3/oauth/grants", nil, bearer(jwt)...), 400, "validation_error", "missing_parameter")
	wantError(t, e.do("GET", "/v3/oauth/grants", nil), 401, "authentication_error", "invalid_api_key")
	if r := e.do("DELETE", "/v3/oauth/grants/"+id, nil, append(bearer(jwt), ws...)...); r.Status != 200 || r.JSON(t)["revoked_at"] == nil {
		t.Fatalf("revoke grant: %d %s", r.Status, r.Body)
	}
	if works(key) {
		t.Fatal("the key works after its grant was revoked")
	}

	// Revoking the client revokes every key issued to it, and its requests stop.
	key = issue()
	if _, err := e.store.OAuth.RevokeOAuthClient(context.Background(), client.ID); err != nil {
		t.Fatal(err)
	}
	if works(key) {
		t.Fatal("the key works after its client was revoked")
	}
	f := e.startFlow(client, nil)
	if r := f.open(); r.Status != 400 || r.Header.Get("Location") != "" {
		t.Fatalf("a revoked client's request: %d %v", r.Status, r.Header)
	}
}

// TestOAuthMetadata: RFC 8414's document names the endpoints this server serves.
func TestOAuthMetadata(t *testing.T) {
	e := newEnv(t)
	m := e.do("GET", api.PathMetadata, nil).JSON(t)
	if m["issuer"] != "https://mtk.example" || m["token_endpoint"] != "https://mtk.example/oauth/token" ||
		m["authorization_endpoint"] != "https://mtk.example/oauth/authorize" || m["revocation_endpoint"] != "https://mtk.example/oauth/revoke" {
		t.Fatalf("metadata %v", m)
	}
	if methods, _ := m["code_challenge_methods_supported"].([]any); len(methods) != 1 || methods[0] != "S256" {
		t.Fatalf("PKCE methods %v", m["code_challenge_methods_supported"])
	}
}

// TestOAuthRateLimit: the token endpoint counts per client IP, and its 429 is RFC 6749's shape
// with Retry-After.
func TestOAuthRateLimit(t *testing.T) {
	e := newEnv(t)
	client := e.newClient(false, auth.ScopeDataRead)
	var last response
	for i := 0; i < 1000; i++ {
		last = e.do("POST", api.PathToken, url.Values{"grant_type": {"authorization_code"}, "client_id": {client.ID}}.Encode(),
			"Content-Type", "application/x-www-form-urlencoded")
		if last.Status == 429 {
			break
		}
	}
	wantOAuthError(t, last, 429, "rate_limit_exceeded")
	if last.Header.Get("Retry-After") == "" {
		t.Fatal("429 without Retry-After")
	}
}

// TestOAuthLoopbackRedirect: a native app registered on a loopback IP may come back on any port
// (RFC 8252 section 7.3), and must redeem with the URI it sent; localhost, https and any other
// difference of path or query are refused.
func TestOAuthLoopbackRedirect(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	client := e.newClient(false, auth.ScopeDataRead) // registers http://127.0.0.1:9999/cb
	const sent = "http://127.0.0.1:51004/cb"

	redeem := func() (*oauthFlow, string) {
		t.Helper()
		f := e.startFlow(client, func(q url.Values) { q.Set("redirect_uri", sent) })
		if r := f.open(); r.Status != 200 || !strings.Contains(r.Header.Get("Content-Security-Policy"), "form-action 'self' http://127.0.0.1:51004") {
			t.Fatalf("consent page for another loopback port: %d %v %s", r.Status, r.Header, r.Body)
		}
		f.signInAs(tn.user.Email, tn.password)
		r := f.post(url.Values{"action": {"approve"}, "signin": {f.signIn}, "workspace_id": {tn.ws.ID}})
		loc, err := url.Parse(r.Header.Get("Location"))
		if r.Status != 303 || err != nil || loc.Scheme+"://"+loc.Host+loc.Path != sent || loc.Query().Get("code") == "" {
			t.Fatalf("approve: %d, Location %q, want %s with a code", r.Status, r.Header.Get("Location"), sent)
		}
		return f, loc.Query().Get("code")
	}
	f, code := redeem()
	if r := f.exchange(code, func(form url.Values) { form.Set("redirect_uri", sent) }); r.Status != 200 {
		t.Fatalf("redeeming with the URI sent: %d %s", r.Status, r.Body)
	}
	f, code = redeem()
	wantOAuthError(t, f.exchange(code, func(form url.Values) { form.Set("redirect_uri", "http://127.0.0.1:9999/cb") }), 400, "invalid_grant")

	local, err := e.store.OAuth.CreateOAuthClient(context.Background(), platform.OAuthClientInput{Name: "Local App",
		RedirectURIs: []string{"http://localhost:9999/cb"}, Scopes: []string{auth.ScopeDataRead}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		client   platform.OAuthClient
		redirect string
	}{
		{local, "http://localhost:51004/cb"},
		{client, "https://platform.example:8443/oauth/callback?source=mtk"},
		{client, "http://127.0.0.1:51004/cb/other"},
		{client, "http://127.0.0.1:51004/cb?extra=1"},
		{client, "http://127.0.0.1.evil.example:51004/cb"},
	} {
		r := e.startFlow(c.client, func(q url.Values) { q.Set("redirect_uri", c.redirect) }).open()
		if r.Status != 400 || r.Header.Get("Location") != "" || !strings.Contains(string(r.Body), "redirect_uri is not one that this client registered") {
			t.Errorf("redirect_uri %s: %d %v, want the 400 page", c.redirect, r.Status, r.Header.Get("Location"))
		}
	}
}
