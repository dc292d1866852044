package facts

import "cmp"

// Touch sets: which of a person's touches a model credits (metadata.attribution.touches).
const (
	// TouchesAds are the touches whose UTM resolves to an ad entity (and tracking-link clicks).
	TouchesAds = "ads"
	// TouchesAll are every marketing touch: an event or link click with any UTM parameter, or
	// with a referrer whose host is neither the page's own nor its container's.
	TouchesAll = "all"
)

// TouchSets are the touch sets, the ad view's default first.
var TouchSets = []string{TouchesAds, TouchesAll}

// TouchDims are a touch's traffic dimensions: what a credit carries so that the traffic view
// groups credits by them (CONTRACT "Query: views, cross-channel attribution and identity"). The
// columns are the business family's dimensions of the same names (TouchDimColumns).
type TouchDims struct {
	UTMSource    string `json:"utm_source,omitempty"`
	UTMMedium    string `json:"utm_medium,omitempty"`
	UTMCampaign  string `json:"utm_campaign,omitempty"`
	UTMContent   string `json:"utm_content,omitempty"`
	UTMTerm      string `json:"utm_term,omitempty"`
	ReferrerHost string `json:"referrer_host,omitempty"`
	LandingPath  string `json:"landing_path,omitempty"`
	Device       string `json:"device,omitempty"`
}

// TouchDimColumns are the columns of TouchDims, in its field order (Values).
var TouchDimColumns = []string{"utm_source", "utm_medium", "utm_campaign", "utm_content", "utm_term",
	"referrer_host", "landing_path", "device"}

// Values are d's fields in TouchDimColumns order, as an insert appends them.
func (d TouchDims) Values() []any {
	return []any{d.UTMSource, d.UTMMedium, d.UTMCampaign, d.UTMContent, d.UTMTerm, d.ReferrerHost, d.LandingPath, d.Device}
}

// compare orders touch dimensions field by field, so that ties between touches sort alike in
// every run.
func (d TouchDims) compare(o TouchDims) int {
	return cmp.Or(cmp.Compare(d.UTMSource, o.UTMSource), cmp.Compare(d.UTMMedium, o.UTMMedium),
		cmp.Compare(d.UTMCampaign, o.UTMCampaign), cmp.Compare(d.UTMContent, o.UTMContent),
		cmp.Compare(d.UTMTerm, o.UTMTerm), cmp.Compare(d.ReferrerHost, o.ReferrerHost),
		cmp.Compare(d.LandingPath, o.LandingPath), cmp.Compare(d.Device, o.Device))
}

// Dest returns pointers to d's fields in TouchDimColumns order (the destinations of a scan).
func (d *TouchDims) Dest() []any {
	return []any{&d.UTMSource, &d.UTMMedium, &d.UTMCampaign, &d.UTMContent, &d.UTMTerm, &d.ReferrerHost, &d.LandingPath, &d.Device}
}
