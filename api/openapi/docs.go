package openapi

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// The reference page's sources: the page, its style and its script, which renders the document.
var (
	//go:embed docs.html
	docsHTML string
	//go:embed docs.css
	docsCSS string
	//go:embed docs.js
	docsJS string
)

// page is the reference page with its style, script and the document inside it, so that it
// needs nothing else; csp lets the browser run that style and script and load nothing else.
var page, csp = buildPage(docsHTML, docsCSS, docsJS, document)

// buildPage fills the page's placeholders. The document goes into a JSON data block, with every
// "<" written as \u003c (which JSON reads as the same character) so that the block cannot end
// early. The Content-Security-Policy allows exactly the page's style and script, by hash.
func buildPage(html, css, js string, doc []byte) ([]byte, string) {
	data := strings.ReplaceAll(string(doc), "<", `\u003c`)
	out := strings.NewReplacer("{{style}}", css, "{{script}}", js, "{{document}}", data).Replace(html)
	policy := "default-src 'none'; script-src '" + hash(js) + "'; style-src '" + hash(css) +
		"'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	return []byte(out), policy
}

func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// ServeDocs answers GET /docs with the reference page.
func ServeDocs(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderContentSecurityPolicy, csp)
	return c.Send(page)
}
