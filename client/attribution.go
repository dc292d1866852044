package client

// Attribution chooses which touches of an order's person earn its order metrics (tx_*): the
// query's metadata.attribution. Zero members take the API's defaults.
//
// Every model but ModelReported credits touches, each with its ad entity (none for a touch that
// is no ad) and its traffic dimensions: in the ad view it credits ads, in the traffic view
// (Dimensions) it groups and filters order metrics by the credited touch's utm_*, referrer_host,
// landing_path and device, with orders that had no touch on the row of null dimensions. Such a
// query refuses an order's own dimensions (product_id, product_name, payment_method,
// customer_type; 400 naming the member), RevenueNet and tx_units (400 naming
// metadata.attribution.model).
type Attribution struct {
	// Model is one of Model… (default ModelReported).
	Model string `json:"model,omitempty"`
	// WindowDays is how far before the order a touch counts: 1 to 90 (default 28).
	WindowDays int `json:"window_days,omitempty"`
	// Date is DateConversion (default: credit on the order's time) or DateClick (on each
	// touch's time).
	Date string `json:"date,omitempty"`
	// Touches is TouchesAds (only touches whose UTM resolves to an ad entity) or TouchesAll
	// (every marketing touch); the default follows the view (ads, traffic: all). ModelReported
	// takes only its view's set. A server that does not know the member yet answers 400 naming
	// it, so it is sent only when set.
	Touches string `json:"touches,omitempty"`
}

// The attribution models (Attribution.Model): reported is the order's own UTM, else its
// person's latest touch at or before it; the others share the order among the touches of the
// window (position based: 40/20/40; time decay: weight 2^(-age / 7 days)).
const (
	ModelReported      = "reported"
	ModelLastClick     = "last_click"
	ModelFirstClick    = "first_click"
	ModelLinear        = "linear"
	ModelPositionBased = "position_based"
	ModelTimeDecay     = "time_decay"
)

// The dates credits are placed on (Attribution.Date).
const (
	DateConversion = "conversion"
	DateClick      = "click"
)

// The touches a model credits (Attribution.Touches).
const (
	TouchesAds = "ads"
	TouchesAll = "all"
)

// The revenue bases of QueryRequest.Revenue.
const (
	RevenueGross = "gross"
	RevenueNet   = "net"
)

// The views an answer counts in (QueryResult.View, Explanation.View): ViewAds counts what
// attribution credits to ad entities, ViewTraffic every event and order. Dimensions, or a filter
// on a traffic or order dimension, choose the traffic view.
const (
	ViewAds     = "ads"
	ViewTraffic = "traffic"
)
