// Package consent renders the OAuth consent page that GET and POST /oauth/authorize answer: sign
// in, pick a workspace, approve or deny, or an error that the request cannot go on. The page is
// one server-rendered HTML document that works without JavaScript (it has none); its style is
// inline and allowed by hash, so its Content-Security-Policy allows nothing else.
package consent

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"strings"
)

var (
	//go:embed consent.html
	pageHTML string
	//go:embed consent.css
	pageCSS string
)

var page = template.Must(template.New("consent").Parse(pageHTML))

// The page's steps.
const (
	StepSignIn  = "signin"  // e-mail and password
	StepConsent = "consent" // pick a workspace, approve or deny
	StepError   = "error"   // the request cannot go on, and does not go back to the platform
)

// Scope is one requested scope and what it allows, in words.
type Scope struct{ Name, Words string }

// Workspace is one the signed-in person may connect.
type Workspace struct{ ID, Name string }

// Page is what one rendering shows.
type Page struct {
	Step       string
	Client     string // the platform's name
	Scopes     []Scope
	Action     string // the form's target: the authorization request's own URL
	CSRF       string
	Email      string
	SignIn     string // the consent step's proof of sign-in
	Workspaces []Workspace
	Error      string
}

// Render returns the page as HTML.
func Render(p Page) ([]byte, error) {
	var buf bytes.Buffer
	err := page.Execute(&buf, struct {
		Page
		CSS template.CSS
	}{p, template.CSS(pageCSS)})
	return buf.Bytes(), err
}

// styleHash allows the inline style, and only it.
var styleHash = func() string {
	sum := sha256.Sum256([]byte(pageCSS))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}()

// CSP is the page's Content-Security-Policy. formTargets are the origins its form may lead to
// besides its own: the platform's redirect URI, since browsers hold a form's redirects to
// form-action too. No frame may embed the page (clickjacking would approve for the person).
func CSP(formTargets ...string) string {
	action := "'none'"
	if len(formTargets) > 0 {
		action = "'self' " + strings.Join(formTargets, " ")
	}
	return "default-src 'none'; style-src '" + styleHash + "'; base-uri 'none'; form-action " + action + "; frame-ancestors 'none'"
}
