package traffic

import (
	"net/url"
	"strings"
)

// ReferrerHost is the host of a referrer URL, lower-cased, as given (a www. prefix is kept),
// without port or credentials; "" when there is none or it is not an absolute URL.
func ReferrerHost(referrer string) string { return hostOf(referrer) }

// hostOf is the host of an absolute URL, lower-cased, without port or credentials; "" otherwise.
func hostOf(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// LandingPath is the path of a page URL as sent (escapes kept), without query or fragment: "/"
// for a bare host, the URL itself when it is a path ("/checkout"), "" otherwise.
func LandingPath(pageURL string) string {
	s := strings.TrimSpace(pageURL)
	s, _, _ = strings.Cut(s, "#")
	s, _, _ = strings.Cut(s, "?")
	if _, rest, ok := strings.Cut(s, "://"); ok {
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			return rest[i:]
		}
		return "/"
	}
	if strings.HasPrefix(s, "/") && !strings.HasPrefix(s, "//") {
		return s
	}
	return ""
}

// Touch is where one visit came from, as the business facts key it.
type Touch struct {
	ReferrerHost, LandingPath, Device string
}

// Of is the touch of an event's page URL, referrer and User-Agent.
func Of(pageURL, referrer, userAgent string) Touch {
	return Touch{ReferrerHost: ReferrerHost(referrer), LandingPath: LandingPath(pageURL), Device: Device(userAgent)}
}
