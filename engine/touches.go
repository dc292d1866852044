package engine

import (
	"fmt"
	"strings"

	"mtk/facts"
)

// The touch sets a model credits (metadata.attribution.touches; CONTRACT "Query: views,
// cross-channel attribution and identity"): the ad view credits ad touches by default, as it
// always did, and the traffic view every marketing touch, which is what its rows (utm_source,
// referrer_host, ...) are about.

// TouchChoices is what GET /v3/fields says metadata.attribution.touches takes.
type TouchChoices struct {
	// Sets are the touch sets, the ad view's default first.
	Sets []string `json:"sets"`
	// Defaults are each view's touch set when the query names none.
	Defaults TouchDefaults `json:"defaults"`
}

// TouchDefaults are the touch set of each view: Ads of ViewAds, Traffic of ViewTraffic.
type TouchDefaults struct {
	Ads     string `json:"ads"`
	Traffic string `json:"traffic"`
}

var touchChoices = TouchChoices{Sets: facts.TouchSets,
	Defaults: TouchDefaults{Ads: facts.TouchesAds, Traffic: facts.TouchesAll}}

// queryView is the view the query answers in, known before planning (plan.view says the same).
func (in QueryInput) queryView() string {
	if in.trafficReason() != "" {
		return ViewTraffic
	}
	return ViewAds
}

// defaultTouches is the touch set of the query's view.
func (in QueryInput) defaultTouches() string {
	if in.queryView() == ViewTraffic {
		return touchChoices.Defaults.Traffic
	}
	return touchChoices.Defaults.Ads
}

// touchDimension reports whether a credit carries d: a touch's traffic dimension, which models
// can group and filter credits by.
func touchDimension(d *Dimension) bool { return d != nil && contains(facts.TouchDimColumns, d.column) }

// validateTouches checks metadata.attribution.touches and what a model can be asked with.
//
// reported has no touch set of its own: it credits the order's own UTM, else its person's latest
// touch, which the ad view counts when it names an ad and the traffic view by its dimensions.
// Naming the set the view already counts is accepted (a client may send its touches with every
// model); naming the other is refused, since reported would silently answer the same.
//
// A crediting model reads the credits, which hold an order's gross values shared among its
// touches and each touch's traffic dimensions: it refuses the members that need what an order
// alone knows (its products, payment method, customer type, net revenue, units).
func (in QueryInput) validateTouches(p *problems, a *Attribution) {
	if a.Touches != "" && !contains(facts.TouchSets, a.Touches) {
		p.add("metadata.attribution.touches: unknown touch set %q; want one of %s", a.Touches, strings.Join(facts.TouchSets, ", "))
		return
	}
	if a.Model == "" || a.Model == ModelReported {
		if def := in.defaultTouches(); a.Touches != "" && a.Touches != def {
			p.add("metadata.attribution.touches: the reported model counts the touches of the %q view (%q); ask %q with a crediting model (%s)",
				in.queryView(), def, a.Touches, strings.Join(facts.CreditModels, ", "))
		}
		return
	}
	if !contains(Models, a.Model) {
		return
	}
	if why := in.attributedReason(); why != "" {
		p.add("metadata.attribution.model: %s is answered with the reported model only", why)
	}
	for _, m := range in.orderDimensionMembers() {
		p.add("%s: dimension %q is an order's, and models credit touches (utm_*, referrer_host, landing_path, device): ask it with the reported model",
			m.member, m.name)
	}
}

// memberDimension is a dimension a query member names.
type memberDimension struct{ member, name string }

// orderDimensionMembers are the query's dimensions and dimension filters that are an order's or
// its products' (product_*, payment_method, customer_type), with the member naming each.
func (in QueryInput) orderDimensionMembers() []memberDimension {
	var out []memberDimension
	for i, d := range in.dimensions() {
		if x := dimensionsByName[d]; x != nil && x.business && !touchDimension(x) {
			out = append(out, memberDimension{fmt.Sprintf("metadata.dimensions[%d]", i), d})
		}
	}
	for i, f := range in.Filters {
		if x := dimensionsByName[f.Member]; x != nil && x.business && !touchDimension(x) {
			out = append(out, memberDimension{fmt.Sprintf("filters[%d].member", i), f.Member})
		}
	}
	return out
}
