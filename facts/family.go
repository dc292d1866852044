package facts

// A Family is one stream of fact rows and the tables that keep it: its measures are those of
// Specs of the origins it keeps, so that the column lists of its inserts, its outbox codecs and the
// engine's registries are derived from one declaration.
type Family struct {
	Name string
	// Origins are the origins of the measures the family keeps.
	Origins []Origin
	// Measures are its measures, in Measure order (Specs of Origins).
	Measures []Measure
}

func newFamily(name string, origins ...Origin) *Family {
	return &Family{Name: name, Origins: origins, Measures: From(origins...)}
}

// The fact families.
var (
	// FactsFamily is the ad facts (facts_raw and its rollups): the networks' metrics and the
	// business facts attributed to an ad entity.
	FactsFamily = newFamily("facts", OriginAd, OriginEvent, OriginOrder)
	// BusinessFamily is every event and order of a project, attributed or not (business_raw, its
	// rollups and its per-dimension rollups).
	BusinessFamily = newFamily("business", OriginEvent, OriginOrder, OriginOrderLine)
	// JourneysFamily is the touches and orders of each lead that models credit (journeys).
	JourneysFamily = newFamily("journeys", OriginOrder)
	// CreditsFamily is the credits of each order under every model and window (credits_raw and
	// its rollups).
	CreditsFamily = newFamily("credits", OriginOrder)
)
