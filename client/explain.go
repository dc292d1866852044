package client

import (
	"context"
	"time"
)

// Explanation is how a query would be answered (POST /v3/query/explain).
type Explanation struct {
	// Plan is the range cut into the parts each table answers, in time order.
	Plan []PlanPart `json:"plan"`
	// SQL is the statements that would answer, with their values bound.
	SQL      []string `json:"sql"`
	Warnings []string `json:"warnings"`
	// Attribution is the model, window and date the order metrics would be credited by, the
	// API's defaults filled in.
	Attribution AttributionUsed `json:"attribution"`
	// View is what the answer would count (ViewAds, ViewTraffic); "" from a server that does
	// not name it.
	View string `json:"view,omitempty"`
	// Cache tells whether the answer cache (the replica's or the shared tier) holds the
	// answer: "hit", "miss" or "off".
	Cache string `json:"cache"`
	// Source is where the answer would come from now: "memory" (the replica's answer cache),
	// "shared" (the replicas' shared tier) or "clickhouse"; "" from a server that does not say.
	Source string `json:"source,omitempty"`
}

// PlanPart is one part of an explained range: the table that answers from Start to End
// (excluded), in the project's time zone.
type PlanPart struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Table is one of the ad facts' (facts_raw, facts_hourly, facts_daily) or the business
	// facts' (business_raw, business_hourly, business_daily, business_dim_hourly,
	// business_dim_daily, business_pair_daily, business_dim_entity_daily).
	Table string `json:"table"`
	// Granularity is the part's buckets (Granularity…); empty for totals.
	Granularity string `json:"granularity"`
}

// AttributionUsed is the attribution an explained query is answered with.
type AttributionUsed struct {
	Model      string `json:"model"`
	WindowDays int    `json:"window_days"`
	Date       string `json:"date"`
	// Touches is the touch set credited (TouchesAds or TouchesAll): the one asked, else the
	// view's default; under ModelReported, the one its view counts.
	Touches string `json:"touches"`
	// Table is the table of precomputed credits the order metrics are read from (credits_raw,
	// credits_hourly, credits_daily); "" under ModelReported or without an order metric.
	Table string `json:"table,omitempty"`
}

// Explain tells how q would be answered without running it (POST /v3/query/explain).
func (c *Client) Explain(ctx context.Context, q *QueryRequest, opts ...CallOption) (*Explanation, error) {
	out := new(Explanation)
	return done(out, c.call(ctx, request{method: "POST", path: "/v3/query/explain", safe: true, in: q, out: out}, opts))
}
