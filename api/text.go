package api

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"mtk/api/idempotency"
	"mtk/internal/apperr"
)

// readHeaders are the request headers that mtk reads or documents as parameters; each value must
// be text. Other headers are not looked at: a proxy's header in another encoding is no reason to
// refuse a request. X-Request-Id is not among them because one that is not a sane token is
// replaced (requestID), never refused.
var readHeaders = []string{
	fiber.HeaderAuthorization, headerAPIKey, headerWorkspace, idempotency.HeaderKey, fiber.HeaderUserAgent,
	fiber.HeaderCookie, fiber.HeaderIfNoneMatch, fiber.HeaderCacheControl, fiber.HeaderOrigin,
	fiber.HeaderContentType, fiber.HeaderAccept, fiber.HeaderAccessControlRequestMethod,
}

// checkText refuses, before any route runs, a request with a value that is not text: a NUL
// character or invalid UTF-8 in a path segment, a query or form parameter, a read header, or a
// JSON string (member names too) at any depth. The answer is 400 invalid_parameter with one
// detail line naming each such value. PostgreSQL refuses such text: unchecked, it failed the
// request with a 500, and the batch of other tenants' events written with it.
func checkText(routes *routeLabels) fiber.Handler {
	return func(c *fiber.Ctx) error {
		req := c.Request()
		var problems apperr.Problems
		routes.pathProblems(c.Method(), req.URI().PathOriginal(), &problems)
		if q := req.URI().QueryString(); suspectParams(q) {
			paramProblems(q, &problems)
		}
		headerProblems(&req.Header, &problems)
		if body := req.Body(); isForm(c) && (formRoutes[[2]string{c.Method(), c.Path()}] || !looksLikeJSON(body)) {
			if suspectParams(body) {
				paramProblems(body, &problems)
			}
		} else if jsonTextSuspect(body) {
			jsonTextProblems(body, &problems)
		}
		if problems.Len() > 0 {
			return problems.Invalid("Text must be valid UTF-8 without NUL characters.")
		}
		return c.Next()
	}
}

// formRoutes are the routes that read a form, by method and path: their form-encoded body is a
// form whatever its first byte ("[=1&code=%00" is a form, not JSON).
var formRoutes = map[[2]string]bool{
	{fiber.MethodPost, pathAuthorize}: true,
	{fiber.MethodPost, pathToken}:     true,
	{fiber.MethodPost, pathRevoke}:    true,
}

// isForm reports whether the body is application/x-www-form-urlencoded.
func isForm(c *fiber.Ctx) bool {
	ct, _, _ := strings.Cut(c.Get(fiber.HeaderContentType), ";")
	return strings.EqualFold(strings.TrimSpace(ct), fiber.MIMEApplicationForm)
}

// looksLikeJSON reports whether body opens as a JSON object or array. The JSON routes decode
// the body whatever its Content-Type, and `curl -d` labels JSON as a form, so such a body is
// checked as JSON there (never on the formRoutes).
func looksLikeJSON(body []byte) bool {
	body = bytes.TrimLeft(body, " \t\r\n")
	return len(body) > 0 && (body[0] == '{' || body[0] == '[')
}

// suspectParams reports whether URL-encoded parameters may decode to something that is not text.
func suspectParams(raw []byte) bool {
	return len(raw) > 0 && (bytes.IndexByte(raw, '%') >= 0 || textReason(raw) != "")
}

// paramProblems adds the URL-encoded parameters (a query string or a form) whose name or
// decoded value is not text.
func paramProblems(raw []byte, problems *apperr.Problems) {
	args := fasthttp.AcquireArgs()
	defer fasthttp.ReleaseArgs(args)
	args.ParseBytes(raw)
	args.VisitAll(func(k, v []byte) {
		if reason := textReason(k); reason != "" {
			problems.Add(printable(k) + ": its name " + reason)
		} else if reason := textReason(v); reason != "" {
			problems.Add(printable(k) + ": " + reason)
		}
	})
}

// headerProblems adds the read headers whose value is not text. A request whose header block,
// as received, is text has none (every value is a part of it): one scan instead of a look-up per
// read header (0.3 µs of a cache hit). The block does not hold the trailers of a chunked body,
// and a request made in memory has none: those are looked up.
func headerProblems(h *fasthttp.RequestHeader, problems *apperr.Problems) {
	if raw := h.RawHeaders(); len(raw) > 0 && h.ContentLength() >= 0 && textReason(raw) == "" {
		return
	}
	for _, name := range readHeaders {
		for _, v := range h.PeekAll(name) {
			if reason := textReason(v); reason != "" {
				problems.Add(name + ": " + reason)
				break
			}
		}
	}
}

// pathProblems adds the path segments that do not decode to text, by the parameter of the
// route they fall in ("path" where no route has one).
func (r *routeLabels) pathProblems(method string, raw []byte, problems *apperr.Problems) {
	if bytes.IndexByte(raw, '%') < 0 && textReason(raw) == "" {
		return
	}
	segs := splitPath(string(raw))
	for i, seg := range segs {
		text, err := url.PathUnescape(seg)
		if err != nil {
			text = seg // a bad escape stays as sent, which is text when the rest is
		}
		if reason := textReason([]byte(text)); reason != "" {
			problems.Add(r.param(method, segs, i) + ": " + reason)
		}
	}
}

// maxName is the longest name a detail line repeats; a longer one is cut.
const maxName = 64

// printable is a name as a detail line shows it: without the bytes that are not text, and cut
// to maxName bytes.
func printable(b []byte) string {
	s := strings.ReplaceAll(strings.ToValidUTF8(string(b), "\uFFFD"), "\x00", "\uFFFD")
	if len(s) <= maxName {
		return s
	}
	cut := maxName
	for !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
