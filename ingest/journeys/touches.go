package journeys

import (
	"mtk/facts"
	"mtk/ingest/traffic"
	"mtk/platform"
)

// Marketing reports whether a visit with traffic dimensions d (traffic.Dims), on pageURL, through
// container site, is a marketing touch (CONTRACT "Query: views, cross-channel attribution and
// identity"): it has a UTM parameter, or a referrer of another site than the page's and the
// container's (traffic.External). Internal navigation and visits with neither are no touch. A
// tracking-link click has no page nor referrer: it is a touch when its UTM says anything.
func Marketing(d facts.TouchDims, pageURL string, site platform.Container) bool {
	utm := d.UTMSource != "" || d.UTMMedium != "" || d.UTMCampaign != "" || d.UTMContent != "" || d.UTMTerm != ""
	return utm || traffic.External(d.ReferrerHost, pageURL, site.AcceptsHost)
}

// ClickTouch is a tracking-link click's traffic dimensions (its UTM, and the device of the
// User-Agent that followed the link: a click has no page nor referrer) and whether it is a
// marketing touch (Marketing). The live writer (ingest/events) and the backfill both use it.
func ClickTouch(c platform.LinkClick) (facts.TouchDims, bool) {
	d := traffic.Dims(c.UTM, "", "", c.UserAgent)
	return d, Marketing(d, "", platform.Container{})
}
