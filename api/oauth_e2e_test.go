package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"golang.org/x/oauth2"

	"mtk/internal/apitest"
	"mtk/internal/auth"
	"mtk/internal/browsertest"
	"mtk/platform"
)

func TestMain(m *testing.M) {
	code := m.Run()
	browsertest.Stop()
	os.Exit(code)
}

// thirdParty is a platform's web server: its OAuth callback hands what arrived to the test.
type thirdParty struct {
	url       string
	callbacks chan map[string]string
}

func startThirdParty(t *testing.T) *thirdParty {
	p := &thirdParty{callbacks: make(chan map[string]string, 4)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r) // the browser's /favicon.ico
			return
		}
		q := r.URL.Query()
		p.callbacks <- map[string]string{"code": q.Get("code"), "state": q.Get("state"), "error": q.Get("error"), "iss": q.Get("iss")}
		fmt.Fprint(w, "<!doctype html><title>connected</title>")
	}))
	t.Cleanup(srv.Close)
	p.url = srv.URL
	return p
}

// callback waits for the browser to arrive at the platform.
func (p *thirdParty) callback(t *testing.T) map[string]string {
	t.Helper()
	select {
	case cb := <-p.callbacks:
		return cb
	case <-time.After(30 * time.Second):
		t.Fatal("the browser never reached the platform's redirect URI")
		return nil
	}
}

// noScripts runs the tab's pages with JavaScript off: the consent page must work without it.
func noScripts(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
	_, err := cdp.Call(ctx, t, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true})
	return chromedp.Void{}, err
}

// TestOAuthInBrowser connects a platform as a person would, in headless Chromium with
// JavaScript off: the platform (golang.org/x/oauth2, the Go team's client) sends the browser to
// the consent page, the person signs in, picks the workspace and approves; the platform redeems
// the code and its key reads /v3/query and nothing outside its scopes. A second redemption
// revokes the key; a denial comes back as access_denied.
func TestOAuthInBrowser(t *testing.T) {
	srv := apitest.Start(t, apitest.Options{})
	tn := srv.NewTenant(t, "acme", platform.TierDefault)
	third := startThirdParty(t)
	client, err := srv.Store.OAuth.CreateOAuthClient(context.Background(), platform.OAuthClientInput{Name: "Acme Reports",
		RedirectURIs: []string{third.url + "/callback"}, Scopes: []string{auth.ScopeDataRead, auth.ScopeTrackingRead}, Confidential: true})
	if err != nil {
		t.Fatal(err)
	}
	conf := oauth2.Config{ClientID: client.ID, ClientSecret: client.Secret, RedirectURL: third.url + "/callback",
		Scopes: []string{auth.ScopeDataRead}, Endpoint: oauth2.Endpoint{AuthURL: srv.URL + "/oauth/authorize",
			TokenURL: srv.URL + "/oauth/token", AuthStyle: oauth2.AuthStyleInHeader}}
	verifier := oauth2.GenerateVerifier()

	tb := browsertest.NewTab(t, 1024, 800)
	tb.Run(noScripts)
	tb.Run(chromedp.Navigate(conf.AuthCodeURL("state-123", oauth2.S256ChallengeOption(verifier))),
		// Enter in the password field signs in (the form's first button), as people do.
		chromedp.SendKeys(chromedp.ID("email"), tn.User.Email), chromedp.SendKeys(chromedp.ID("password"), tn.Password+"\r"),
		chromedp.WaitVisible(chromedp.ID("approve")))
	tb.Run(chromedp.Click(chromedp.ID("approve")))
	cb := third.callback(t)
	if cb["code"] == "" || cb["state"] != "state-123" || cb["iss"] != srv.URL {
		t.Fatalf("callback %v", cb)
	}
	if problems := tb.Errors(); len(problems) > 0 {
		t.Fatalf("the consent page logged errors (a CSP refusal?): %v", problems)
	}

	ctx := context.Background()
	tok, err := conf.Exchange(ctx, cb["code"], oauth2.VerifierOption(verifier))
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.Extra("workspace_id") != tn.Workspace.ID || tok.Extra("scope") != auth.ScopeDataRead {
		t.Fatalf("token %+v", tok)
	}
	call := func(method, path, body string) int {
		req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		tok.SetAuthHeader(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	query := fmt.Sprintf(`{"project_id":%q,"fields":["spend","roas"],"time":{"start":"2026-03-01","end":"2026-03-07"}}`, tn.Project.ID)
	if got := call("POST", "/v3/query", query); got != 200 {
		t.Fatalf("the platform's key on /v3/query: %d", got)
	}
	if got := call("GET", "/v3/tracking/containers/"+tn.Container.ID, ""); got != 403 {
		t.Fatalf("the platform's key outside its scopes: %d, want 403", got)
	}

	// The code again: refused as invalid_grant, and the key it gave stops working.
	_, err = conf.Exchange(ctx, cb["code"], oauth2.VerifierOption(verifier))
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.ErrorCode != "invalid_grant" {
		t.Fatalf("second redemption: %v", err)
	}
	if got := call("POST", "/v3/query", query); got != 401 {
		t.Fatalf("the key of a reused code: %d, want 401", got)
	}

	// Deny, from the sign-in step.
	tb.Run(chromedp.Navigate(conf.AuthCodeURL("state-456", oauth2.S256ChallengeOption(oauth2.GenerateVerifier()))),
		chromedp.Click(chromedp.ID("deny")))
	if cb := third.callback(t); cb["error"] != "access_denied" || cb["state"] != "state-456" || cb["code"] != "" {
		t.Fatalf("deny: %v", cb)
	}
}
