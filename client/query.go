package client

import (
	"context"
	"encoding/json"
)

// The granularities of a query's time buckets. Sub-hourly ones answer at GranularityHour (with a
// warning) on the default tier.
const (
	Granularity5Min    = "5min"
	Granularity10Min   = "10min"
	Granularity15Min   = "15min"
	Granularity30Min   = "30min"
	GranularityHour    = "hour"
	GranularityDay     = "day"
	GranularityWeek    = "week"
	GranularityMonth   = "month"
	GranularityQuarter = "quarter"
	GranularityYear    = "year"
)

// The entity levels a query groups rows by.
const (
	LevelAccount  = "account"
	LevelCampaign = "campaign"
	LevelAdset    = "adset"
	LevelAd       = "ad"
)

// The ad networks.
const (
	SourceAlpha = "alpha_ads"
	SourceBeta  = "beta_ads"
	SourceGamma = "gamma_ads"
)

// QueryRequest asks for metrics of a project (POST /v3/query). Zero members are left out and
// take the API's defaults.
type QueryRequest struct {
	ProjectID string
	// Fields are metric names: spend, impressions, clicks, ctr, roas, … (see Fields).
	Fields []string
	// Source keeps one network (SourceAlpha, …); ConnectionIDs keeps some connections.
	Source        string
	ConnectionIDs []string
	// Start and End are YYYY-MM-DD (End's whole day included) or ISO 8601 date-times (End
	// excluded), read in the project's time zone without an offset. Both empty: the last 30
	// days including today.
	Start, End string
	// Range names the range instead of Start and End (Range…), resolved in the project's zone;
	// the answer's Time says which days it was.
	Range string
	// Compare adds each row's values over another period (ComparePreviousPeriod,
	// ComparePreviousYear), or the period CompareStart to CompareEnd (written as Start and End
	// are): every row then holds "compare" and "change" objects, and the answer CompareTime.
	Compare, CompareStart, CompareEnd string
	// Granularity buckets the rows by time (Granularity…); empty gives totals.
	Granularity string
	// Level groups the rows by entity (Level…); empty gives totals.
	Level string
	// Dimensions group the rows by traffic and order dimensions too (utm_source, device,
	// product_id, customer_type, …: those of Fields whose Dimension.Metrics is set). Given, even
	// empty, they put the query in the traffic view (ViewTraffic): nil leaves the member out, a
	// non-nil empty slice sends [] (the traffic total that rows by any dimension sum to).
	Dimensions []string
	// Revenue is the basis of every metric built on tx_revenue: RevenueGross (the API's
	// default) or RevenueNet (the orders' commission).
	Revenue string
	// Attribution chooses how order metrics (tx_*) are credited to touches; nil is the API's
	// default (ModelReported).
	Attribution *Attribution
	// Filters restrict the data; their values are OR-ed.
	Filters []Filter
	// Order sorts the rows: the first key first.
	Order []OrderBy
	// Limit is 1 to 50000 (0: the API's 10000); Offset skips rows.
	Limit, Offset int
	// Currency converts money to this ISO 4217 code instead of the project's.
	Currency string
	// Total asks for TotalRows, the rows before Limit and Offset.
	Total bool
}

// The named ranges of QueryRequest.Range: whole days ending yesterday (Last…), or ending today.
const (
	RangeToday      = "today"
	RangeYesterday  = "yesterday"
	RangeLast7Days  = "last_7_days"
	RangeLast14Days = "last_14_days"
	RangeLast30Days = "last_30_days"
	RangeLast90Days = "last_90_days"
	RangeThisWeek   = "this_week"
	RangeThisMonth  = "this_month"
	RangeLastMonth  = "last_month"
	RangeThisYear   = "this_year"
)

// The comparisons of QueryRequest.Compare.
const (
	ComparePreviousPeriod = "previous_period"
	ComparePreviousYear   = "previous_year"
)

// Filter restricts a query: Member is a dimension (campaign_name, source, …) or a metric;
// Operator one of equals, notEquals, contains, notContains, startsWith, endsWith (these four
// ignore case), gt, gte, lt, lte, set, notSet.
type Filter struct {
	Member   string   `json:"member"`
	Operator string   `json:"operator"`
	Values   []string `json:"values,omitempty"`
}

// OrderBy sorts by a field or row key, Desc or not.
type OrderBy struct {
	Field string
	Desc  bool
}

// orderObject writes the order as the API's object, its members in order.
type orderObject []OrderBy

func (o orderObject) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, k := range o {
		if i > 0 {
			b = append(b, ',')
		}
		name, err := json.Marshal(k.Field)
		if err != nil {
			return nil, err
		}
		b = append(b, name...)
		if k.Desc {
			b = append(b, `:"desc"`...)
		} else {
			b = append(b, `:"asc"`...)
		}
	}
	return append(b, '}'), nil
}

type queryTime struct {
	Start       string       `json:"start,omitempty"`
	End         string       `json:"end,omitempty"`
	Range       string       `json:"range,omitempty"`
	Granularity string       `json:"granularity,omitempty"`
	Compare     *compareSpec `json:"compare,omitempty"`
}

// compareSpec is time.compare: a mode (ComparePreviousPeriod, …) written as a string, else the
// period {start, end}.
type compareSpec struct {
	mode  string
	Start string `json:"start"`
	End   string `json:"end"`
}

func (c compareSpec) MarshalJSON() ([]byte, error) {
	if c.mode != "" {
		return json.Marshal(c.mode)
	}
	type period compareSpec // without the method
	return json.Marshal(period(c))
}

type queryMetadata struct {
	Level string `json:"level,omitempty"`
	// Dimensions omits nil only: an empty list is sent as [] (QueryRequest.Dimensions).
	Dimensions        []string     `json:"dimensions,omitzero"`
	ConvertToCurrency string       `json:"convert_to_currency,omitempty"`
	Revenue           string       `json:"revenue,omitempty"`
	Attribution       *Attribution `json:"attribution,omitempty"`
}

// queryBody is the JSON body of POST /v3/query.
type queryBody struct {
	ProjectID     string         `json:"project_id"`
	Fields        []string       `json:"fields"`
	Source        string         `json:"source,omitempty"`
	ConnectionIDs []string       `json:"connection_ids,omitempty"`
	Time          *queryTime     `json:"time,omitempty"`
	Filters       []Filter       `json:"filters,omitempty"`
	Order         orderObject    `json:"order,omitempty"`
	Limit         int            `json:"limit,omitempty"`
	Offset        int            `json:"offset,omitempty"`
	Metadata      *queryMetadata `json:"metadata,omitempty"`
	Total         bool           `json:"total,omitempty"`
}

// MarshalJSON writes the request as the API's body.
func (q QueryRequest) MarshalJSON() ([]byte, error) {
	b := queryBody{ProjectID: q.ProjectID, Fields: q.Fields, Source: q.Source, ConnectionIDs: q.ConnectionIDs,
		Filters: q.Filters, Order: q.Order, Limit: q.Limit, Offset: q.Offset, Total: q.Total}
	if q.Start != "" || q.End != "" || q.Range != "" || q.Granularity != "" || q.Compare != "" || q.CompareStart != "" {
		b.Time = &queryTime{Start: q.Start, End: q.End, Range: q.Range, Granularity: q.Granularity}
		switch {
		case q.Compare != "":
			b.Time.Compare = &compareSpec{mode: q.Compare}
		case q.CompareStart != "" || q.CompareEnd != "":
			b.Time.Compare = &compareSpec{Start: q.CompareStart, End: q.CompareEnd}
		}
	}
	if q.Level != "" || q.Currency != "" || q.Dimensions != nil || q.Revenue != "" || q.Attribution != nil {
		b.Metadata = &queryMetadata{Level: q.Level, Dimensions: q.Dimensions, ConvertToCurrency: q.Currency,
			Revenue: q.Revenue, Attribution: q.Attribution}
	}
	return json.Marshal(b)
}

// QueryResult is the answer of Query. Money values are in major units of Currency.
type QueryResult struct {
	Success bool  `json:"success"`
	Data    []Row `json:"data"`
	// Currency is that of every money value.
	Currency string `json:"currency"`
	// Warnings say when the answer is not exactly what was asked: a coarser table, a missing
	// exchange rate, a reach summed over days.
	Warnings []string `json:"warnings"`
	// HasMore is true when Limit cut the answer.
	HasMore bool `json:"has_more"`
	// View is what the answer counts: ViewAds (what attribution credits to ad entities) or
	// ViewTraffic (every event and order); "" from a server that does not name it.
	View string `json:"view,omitempty"`
	// TotalRows, asked with Total, counts the rows before Limit and Offset.
	TotalRows *int64 `json:"total_rows,omitempty"`
	// Time is the days a Range resolved to; CompareTime the period compared with.
	Time        *Period `json:"time,omitempty"`
	CompareTime *Period `json:"compare_time,omitempty"`
}

// Period is a range as the API echoes it: dates (End included) for whole days, else RFC 3339
// instants (End excluded).
type Period struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// Row is one row of an answer: the time bucket as "date", the level's <level>_id, <level>_name
// and "source", and the asked fields; with a comparison, Compare and Change read its "compare"
// and "change" members.
type Row map[string]Value

// Compare is the asked fields over the comparison period, from its row at the same position and
// for the same entity (nulls when it has none); nil without a comparison.
func (r Row) Compare() Row {
	var out Row
	if json.Unmarshal(r["compare"].raw, &out) != nil {
		return nil
	}
	return out
}

// Change is, per asked field, (value - compare) / |compare|: nil when either is null or compare
// is 0. The map is nil without a comparison.
func (r Row) Change() map[string]*float64 {
	var out map[string]*float64
	if json.Unmarshal(r["change"].raw, &out) != nil {
		return nil
	}
	return out
}

// Query asks for metrics (POST /v3/query).
func (c *Client) Query(ctx context.Context, q *QueryRequest, opts ...CallOption) (*QueryResult, error) {
	out := new(QueryResult)
	return done(out, c.call(ctx, request{method: "POST", path: "/v3/query", safe: true, in: q, out: out}, opts))
}
