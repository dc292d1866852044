package traffic

import (
	"strings"

	"mtk/facts"
	"mtk/platform/utm"
)

// Dims are a visit's traffic dimensions: its UTM as the event resolved it (utm.Extract: body,
// page URL, cookies) and the referrer host, landing path and device of Of. An event's business row
// and its journey touch both take them from here, so that a credit grouped by a dimension and the
// business facts grouped by it name the same values.
func Dims(u utm.Params, pageURL, referrer, userAgent string) facts.TouchDims {
	t := Of(pageURL, referrer, userAgent)
	return facts.TouchDims{UTMSource: u.Source, UTMMedium: u.Medium, UTMCampaign: u.Campaign, UTMContent: u.Content,
		UTMTerm: u.Term, ReferrerHost: t.ReferrerHost, LandingPath: t.LandingPath, Device: t.Device}
}

// External reports whether referrerHost (ReferrerHost's) is another site's: not empty, and
// neither the host of pageURL nor a host own says is the site's (a container's domain and allowed
// hosts), with or without a leading "www.", so that a visit moving between www.shop.example and
// shop.example stays internal navigation.
func External(referrerHost, pageURL string, own func(host string) bool) bool {
	if referrerHost == "" {
		return false
	}
	bare := strings.TrimPrefix(referrerHost, "www.")
	if page := strings.TrimPrefix(hostOf(pageURL), "www."); page != "" && page == bare {
		return false
	}
	return !own(referrerHost) && !own(bare) && !own("www."+bare)
}
