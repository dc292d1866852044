// Package demoshop serves a small demo shop at /demo-shop/ (`make run` turns it on with
// MTK_DEMO_SHOP=on): a few pages, a lead form, a video and a long page, each carrying the tag of
// the container that takes the page's host, so that a new user clicks around and sees the
// events in the dashboard. The demo container (`mtk seed demo`) takes shop.localhost, which
// browsers resolve to this machine: the shop is http://shop.localhost:<port>/demo-shop/.
//
// The pages allow scripts and connections from their own origin and mtk's (MTK_BASE_URL) only,
// the strict Content-Security-Policy a shop may have: the tag needs nothing else.
//
// static/shoe.webm is a 6-second 160×90 VP8 clip, drawn on a canvas and recorded by headless
// Chromium's MediaRecorder (this machine has no video encoder of its own).
package demoshop

import (
	"bytes"
	"context"
	"embed"
	"html/template"
	"net/url"
	"path"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/platform"
	"mtk/tag"
)

//go:embed pages static
var files embed.FS

var pages = template.Must(template.ParseFS(files, "pages/*.html"))

// Host is the host the demo container takes: *.localhost is this machine in browsers.
const Host = "shop.localhost"

// Path is where the shop is served.
const Path = "/demo-shop/"

// ContainerForHost finds the live container that takes a host (platform.Containers.ContainerForHost).
type ContainerForHost func(ctx context.Context, host string) (platform.Container, error)

// shop serves the pages.
type shop struct {
	baseURL   string
	container ContainerForHost
}

// page is what a page's template reads.
type page struct {
	Title, Host, ShopURL string
	Script               string // the tag's URL; empty when no container takes Host
}

var titles = map[string]string{"": "Home", "product": "Trail Runner", "video": "Video", "contact": "Contact",
	"thanks": "Thank you", "guide": "Trail shoe guide"}

var contentTypes = map[string]string{".css": "text/css; charset=utf-8", ".webm": "video/webm"}

// Register adds GET /demo-shop/ (and its pages and files) to r; baseURL is mtk's public address,
// where the pages load the tag from.
func Register(r fiber.Router, baseURL string, container ContainerForHost) {
	s := shop{baseURL: baseURL, container: container}
	r.Get(Path+"static/:file", s.file)
	r.Get(Path, s.page)
	r.Get(Path+":page", s.page)
	r.Get(strings.TrimSuffix(Path, "/"), func(c *fiber.Ctx) error { return c.Redirect(Path, fiber.StatusFound) })
}

func (s shop) file(c *fiber.Ctx) error {
	name := c.Params("file")
	ct, ok := contentTypes[path.Ext(name)]
	body, err := files.ReadFile("static/" + name)
	if !ok || err != nil {
		return fiber.ErrNotFound
	}
	c.Set(fiber.HeaderContentType, ct)
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	return c.Send(body)
}

func (s shop) page(c *fiber.Ctx) error {
	name := c.Params("page")
	title, ok := titles[name]
	if !ok {
		return fiber.ErrNotFound
	}
	if name == "" {
		name = "index"
	}
	host := c.Hostname()
	p := page{Title: title, Host: host, ShopURL: s.shopURL(host)}
	hostname, _, _ := strings.Cut(host, ":")
	ctr, err := s.container(c.UserContext(), hostname)
	if err == nil {
		p.Script = s.baseURL + tag.Path(tag.Ref(ctr))
	}
	var out bytes.Buffer
	if err := pages.ExecuteTemplate(&out, name+".html", p); err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("Content-Security-Policy", s.policy())
	return c.Send(out.Bytes())
}

// shopURL is the shop's address on the demo host, at the port the page was asked on.
func (s shop) shopURL(host string) string {
	u := url.URL{Scheme: "http", Host: Host, Path: Path}
	if _, port, ok := strings.Cut(host, ":"); ok {
		u.Host += ":" + port
	}
	return u.String()
}

// policy allows the page's own files and mtk's origin, nothing else.
func (s shop) policy() string {
	origin := s.baseURL
	if u, err := url.Parse(s.baseURL); err == nil && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
	}
	return "default-src 'self'; script-src 'self' " + origin + "; connect-src 'self' " + origin +
		"; img-src 'self' data:; media-src 'self'; base-uri 'none'; object-src 'none'; form-action 'self'"
}
