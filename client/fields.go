package client

import (
	"context"
	"net/url"
)

// Metric is a metric a query may ask for. Unit is money, count or ratio; Sources are the
// networks that have it.
type Metric struct {
	Name     string   `json:"name"`
	Category string   `json:"category"`
	Unit     string   `json:"unit"`
	Formula  string   `json:"formula,omitempty"`
	Sources  []string `json:"sources"`
}

// Dimension is a member that filters may use; Levels are the levels whose rows carry it.
type Dimension struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Levels []string `json:"levels"`
	// Metrics, for a traffic or order dimension (one QueryRequest.Dimensions takes), are the
	// metrics it serves; nil for the others.
	Metrics []string `json:"metrics,omitempty"`
}

// FieldList is the answer of Fields: what each member of a query takes.
type FieldList struct {
	Metrics    []Metric    `json:"metrics"`
	Dimensions []Dimension `json:"dimensions"`
	// Ranges are the names QueryRequest.Range takes, Compare the modes QueryRequest.Compare
	// takes (besides a period).
	Ranges  []string `json:"ranges"`
	Compare []string `json:"compare"`
	// Attribution is what QueryRequest.Attribution takes.
	Attribution AttributionChoices `json:"attribution"`
}

// AttributionChoices are the models, dates, windows and touch sets of Attribution.
type AttributionChoices struct {
	Models     []string     `json:"models"`
	Dates      []string     `json:"dates"`
	WindowDays WindowRange  `json:"window_days"`
	Touches    TouchChoices `json:"touches"`
}

// TouchChoices are the touch sets of Attribution.Touches and each view's default.
type TouchChoices struct {
	Sets []string `json:"sets"`
	// Defaults are each view's touch set when a query names none.
	Defaults TouchDefaults `json:"defaults"`
}

// TouchDefaults are the touch set of each view: Ads of ViewAds, Traffic of ViewTraffic.
type TouchDefaults struct {
	Ads     string `json:"ads"`
	Traffic string `json:"traffic"`
}

// WindowRange is the range and default of Attribution.WindowDays.
type WindowRange struct {
	Min     int `json:"min"`
	Max     int `json:"max"`
	Default int `json:"default"`
}

// Fields lists the metrics and dimensions of queries (GET /v3/fields); a non-empty source keeps
// the metrics of that network.
func (c *Client) Fields(ctx context.Context, source string, opts ...CallOption) (*FieldList, error) {
	path := "/v3/fields"
	if source != "" {
		path += "?source=" + url.QueryEscape(source)
	}
	out := new(FieldList)
	return done(out, c.call(ctx, request{method: "GET", path: path, safe: true, out: out}, opts))
}
