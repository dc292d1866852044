// Package dashboard serves mtk's analytics dashboard at /dashboard: one page of hand-written
// HTML, CSS and JavaScript embedded in the binary. The page signs in with an API key and reads
// everything through the public API (GET /v3/projects, GET /v3/fields, POST /v3/query), so it
// shows nothing a key's owner could not fetch themselves.
package dashboard

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"
)

//go:embed static
var files embed.FS

// Security headers of every dashboard response: the page loads scripts, styles, images and
// data from its own origin only, and may not be framed.
const (
	contentSecurityPolicy = "default-src 'self'; base-uri 'none'; object-src 'none'; frame-ancestors 'none'; form-action 'self'"
	// immutable is the caching of an asset fetched by its versioned URL (?v=<hash of its bytes>).
	immutable = "public, max-age=31536000, immutable"
	// revalidate is the caching of the page and of an asset fetched without its version.
	revalidate = "no-cache"
)

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".svg":  "image/svg+xml",
}

// asset is one embedded file, ready to send.
type asset struct {
	body        []byte
	contentType string
	version     string // the first 12 hex digits of the SHA-256 of body
}

func (a asset) etag() string { return `"` + a.version + `"` }

// site is the page and its assets, keyed by their name under /dashboard/.
type site struct {
	index  asset
	assets map[string]asset
}

var dashboard = mustLoad()

// mustLoad reads the embedded files and points the page at each asset's versioned URL, so that
// browsers may keep an asset for a year and a new binary's page still loads the new bytes.
func mustLoad() site {
	s := site{assets: map[string]asset{}}
	var page string
	err := fs.WalkDir(files, "static", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "static/")
		if name == "index.html" {
			page = string(body)
			return nil
		}
		s.assets[name] = newAsset(name, body)
		return nil
	})
	if err != nil || page == "" {
		panic("dashboard: embedded files unreadable: " + errString(err))
	}
	for name, a := range s.assets {
		page = strings.ReplaceAll(page, `"/dashboard/`+name+`"`, `"/dashboard/`+name+`?v=`+a.version+`"`)
	}
	s.index = newAsset("index.html", []byte(page))
	return s
}

func newAsset(name string, body []byte) asset {
	sum := sha256.Sum256(body)
	ct, ok := contentTypes[path.Ext(name)]
	if !ok {
		ct = "application/octet-stream"
	}
	return asset{body: body, contentType: ct, version: hex.EncodeToString(sum[:])[:12]}
}

func errString(err error) string {
	if err == nil {
		return "no index.html"
	}
	return err.Error()
}

// Register adds GET /dashboard (the page) and GET /dashboard/* (its assets) to r.
func Register(r fiber.Router) {
	r.Get("/dashboard", servePage)
	r.Get("/dashboard/*", serveAsset)
}

func servePage(c *fiber.Ctx) error {
	return send(c, dashboard.index, revalidate)
}

// serveAsset answers an embedded asset by name: the page for /dashboard/ itself, 404 for a name
// that is not embedded (nothing is read from disk).
func serveAsset(c *fiber.Ctx) error {
	name := c.Params("*")
	if name == "" || name == "index.html" {
		return servePage(c)
	}
	a, ok := dashboard.assets[name]
	if !ok {
		setSecurityHeaders(c)
		return c.Status(fiber.StatusNotFound).SendString("Not found")
	}
	caching := revalidate
	if c.Query("v") == a.version {
		caching = immutable
	}
	return send(c, a, caching)
}

// send writes a with its validators; a request that already holds these bytes gets 304.
func send(c *fiber.Ctx, a asset, caching string) error {
	setSecurityHeaders(c)
	c.Set(fiber.HeaderCacheControl, caching)
	c.Set(fiber.HeaderETag, a.etag())
	if match := c.Get(fiber.HeaderIfNoneMatch); match != "" && etagMatches(match, a.etag()) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	c.Set(fiber.HeaderContentType, a.contentType)
	return c.Send(a.body)
}

// etagMatches reads an If-None-Match list ("*", or tags with optional W/ prefixes).
func etagMatches(header, etag string) bool {
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

func setSecurityHeaders(c *fiber.Ctx) {
	c.Set(fiber.HeaderContentSecurityPolicy, contentSecurityPolicy)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	c.Set(fiber.HeaderReferrerPolicy, "no-referrer")
	c.Set(fiber.HeaderXFrameOptions, "DENY")
}
