package utm

import (
	"strings"
)

// clean URL-decodes s leniently and trims it: %XX is decoded, '+' is a space, a malformed escape
// is kept as written, and bytes that are not valid UTF-8 are dropped.
func clean(s string) string {
	if strings.ContainsAny(s, "%+") {
		s = unescape(s)
	}
	return strings.TrimSpace(strings.ToValidUTF8(s, ""))
}

func unescape(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '+':
			b.WriteByte(' ')
		case c == '%' && i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	default:
		return c - 'a' + 10
	}
}

// fromQuery reads the utm_* members of a URL query string (without its leading '?'). Keys match
// without case; a repeated key keeps its first non-empty value.
func fromQuery(query string) Params {
	var p Params
	for pair := range strings.SplitSeq(query, "&") {
		key, value, _ := strings.Cut(pair, "=")
		if f := p.field(clean(key)); f != nil && *f == "" {
			*f = clean(value)
		}
	}
	return p
}

// fromURL reads the utm_* members of a page URL's query string, or, when it has none, of the
// query inside its fragment (hash-routed pages).
func fromURL(raw string) Params {
	rest, fragment, _ := strings.Cut(raw, "#")
	if _, query, ok := strings.Cut(rest, "?"); ok {
		if p := fromQuery(query); !p.IsZero() {
			return p
		}
	}
	if _, query, ok := strings.Cut(fragment, "?"); ok {
		return fromQuery(query)
	}
	return Params{}
}

// The cookie that mtk's own tag sets, holding a URL query string of utm_* members.
const cookieName = "_mtk_utm"

// fromCookies reads the _mtk_utm cookie, or, when it holds no utm_* value, the utm_* cookies.
func fromCookies(cookies map[string]string) Params {
	if v := cookies[cookieName]; v != "" {
		if !strings.Contains(v, "=") {
			v = unescape(v) // the whole query string was URL-encoded once more
		}
		if p := fromQuery(v); !p.IsZero() {
			return p
		}
	}
	var p Params
	for _, name := range names {
		*p.field(name) = cookies[name]
	}
	return p.clean()
}
