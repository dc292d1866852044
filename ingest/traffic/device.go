package traffic

import "strings"

// The device classes of the business facts.
const (
	Desktop = "desktop"
	Mobile  = "mobile"
	Tablet  = "tablet"
	Bot     = "bot"
	Other   = "other"
)

// botMarks are substrings (lower case) of crawlers', monitors' and HTTP libraries' User-Agents:
// their page views are no visitor's.
var botMarks = []string{
	"bot", "crawl", "spider", "slurp", "facebookexternalhit", "mediapartners", "lighthouse",
	"headlesschrome", "phantomjs", "curl/", "wget/", "python-requests", "python-urllib", "go-http-client",
	"okhttp", "java/", "libwww", "httpclient", "axios/", "node-fetch", "postmanruntime", "insomnia",
	"pingdom", "uptime", "monitor", "preview", "scrapy", "feedfetcher",
}

// Device classifies a User-Agent: bot for crawlers and HTTP libraries; tablet for iPads and
// Android or other tablets (an Android User-Agent without "Mobile" is a tablet's); mobile for
// phones; desktop for Windows, macOS, Linux and ChromeOS browsers; other for anything else
// (televisions, consoles, the empty User-Agent). iPadOS asks for desktop pages with a Macintosh User-Agent,
// indistinguishable from a Mac's: such visits count as desktop.
func Device(userAgent string) string {
	ua := strings.ToLower(strings.TrimSpace(userAgent))
	if ua == "" {
		return Other
	}
	for _, m := range botMarks {
		if strings.Contains(ua, m) {
			return Bot
		}
	}
	switch {
	case strings.Contains(ua, "ipad"), strings.Contains(ua, "tablet"), strings.Contains(ua, "kindle"),
		strings.Contains(ua, "silk/"), strings.Contains(ua, "playbook"):
		return Tablet
	case strings.Contains(ua, "android"):
		if strings.Contains(ua, "mobile") {
			return Mobile
		}
		return Tablet
	case strings.Contains(ua, "iphone"), strings.Contains(ua, "ipod"), strings.Contains(ua, "mobile"),
		strings.Contains(ua, "opera mini"), strings.Contains(ua, "windows phone"), strings.Contains(ua, "blackberry"):
		return Mobile
	case strings.Contains(ua, "smart-tv"), strings.Contains(ua, "smarttv"), strings.Contains(ua, "tizen"),
		strings.Contains(ua, "web0s"), strings.Contains(ua, "playstation"), strings.Contains(ua, "xbox"),
		strings.Contains(ua, "nintendo"):
		return Other // televisions and consoles
	case strings.Contains(ua, "windows"), strings.Contains(ua, "macintosh"), strings.Contains(ua, "mac os x"),
		strings.Contains(ua, "x11"), strings.Contains(ua, "linux"):
		return Desktop
	}
	return Other
}
