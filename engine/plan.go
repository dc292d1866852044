package engine

import (
	"fmt"
	"time"

	"mtk/internal/apperr"
)

// Scope is what the API layer resolved from PostgreSQL for the query's project.
type Scope struct {
	ProjectID string
	// Currency is the project's default currency (ISO 4217).
	Currency string
	// TimeZone is the project's IANA time zone.
	TimeZone string
	// SubHour says whether the workspace's tier answers sub-hour granularities
	// (platform.SubHourGranularities); without it they answer at hour, with a warning.
	SubHour bool
	// ConnectionIDs are the project's connections; connection_ids must be among them.
	ConnectionIDs []string
	// PairsPending says the pair backfill has not finished for the project (ingest/pairs): its
	// pair rollups and per-dimension rollups by ad entity lack some stored rows, and the wide
	// rollups answer what they would.
	PairsPending bool
}

// plan is a validated query with everything resolved against its scope.
type plan struct {
	projectID  string
	zone       string
	loc        *time.Location
	start, end time.Time
	gran       *granularity
	level      string
	// dims are the traffic and order dimensions that key the rows (metadata.dimensions).
	dims  []*Dimension
	table table
	// family is the set of tables read; items (business family) reads its order lines, for a
	// product dimension, instead of its events and orders; attributed (business family, ad view)
	// reads only the rows attribution linked to an ad entity, those the ad facts hold; net reads
	// tx_revenue_net wherever a metric is built on tx_revenue (metadata.revenue).
	family     family
	items      bool
	attributed bool
	net        bool
	// dimension is the one dimension a business query is about, read from the per-dimension
	// rollups (family familyBusinessDim or familyBusinessDimEntity), and pair the two it is
	// about, read from the pair rollups (familyBusinessPair), in facts.BizDimensions order
	// (chooseRollup).
	dimension *Dimension
	pair      [2]*Dimension
	// pairsPending: the project's pair rollups and per-dimension rollups by ad entity are not
	// complete yet (Scope.PairsPending), so chooseRollup never picks them.
	pairsPending  bool
	currency      string
	fields        []*Metric
	measures      measureSet
	source        string
	connectionIDs []string
	dimFilters    []Filter
	metricFilters []Filter
	order         Order
	limit, offset int
	total         bool // count the rows before limit and offset (Attempt.Total)
	// flagFacts adds has_facts to the answer's rows (see Attempt.Query).
	flagFacts bool
	// oneCurrency sums money without converting it (see Attempt.OneCurrency).
	oneCurrency bool
	// leanRates converts money without the per-measure missing-rate flags (see Attempt.Lean).
	leanRates bool
	// asked is the granularity the rows are meant to have (after the tier's limit); a row
	// answered coarser says so (spans.go).
	asked *granularity
	// spans are the local days answered whole from the daily table (spans.go).
	spans daySpans
	// spanCheck adds span_days to the answer's rows: the day spans, read by the answer's own
	// statement (Compiled.Spans).
	spanCheck bool
	// named is what a named range resolved to, echoed in the answer.
	named *Dates
	// cmpStart and cmpEnd are the comparison period (time.compare), zero without one.
	cmpStart, cmpEnd time.Time
	// credits is metadata.attribution (attribution.go).
	credits credits
}

// newPlan validates in (unless Check did) against scope and resolves it. The warnings hold
// whatever table answers.
func newPlan(scope Scope, in QueryInput, now time.Time) (*plan, []string, error) {
	if !in.checked {
		if err := in.Validate(); err != nil {
			return nil, nil, err
		}
	}
	loc, ok := loadZone(scope.TimeZone)
	if !ok {
		return nil, nil, fmt.Errorf("engine: project %s has an invalid time zone %q", scope.ProjectID, scope.TimeZone)
	}
	if !KnownCurrency(scope.Currency) {
		return nil, nil, fmt.Errorf("engine: project %s has an unknown currency %q", scope.ProjectID, scope.Currency)
	}
	var p problems
	if in.ProjectID != scope.ProjectID {
		p.add("project_id: unknown project %q", in.ProjectID)
	}
	known := map[string]bool{}
	for _, c := range scope.ConnectionIDs {
		known[c] = true
	}
	for i, c := range in.ConnectionIDs {
		if !known[c] {
			p.add("connection_ids[%d]: unknown connection %q for this project", i, c)
		}
	}
	pl := &plan{
		projectID: scope.ProjectID, zone: scope.TimeZone, loc: loc, level: in.level(),
		currency: scope.Currency, source: in.Source, connectionIDs: in.ConnectionIDs,
		order: in.Order, limit: DefaultLimit, measures: measureSet{}, credits: in.resolveCredits(),
		pairsPending: scope.PairsPending,
	}
	pl.start, pl.end = resolveRange(in.Time, loc, now)
	if in.Time != nil && in.Time.Range != "" {
		pl.named = rangeLabel(pl.start, pl.end, loc)
	}
	supported := supportedRange(&p, timeMembers(in.Time), pl.start, pl.end) && minuteRange(&p, timeMembers(in.Time), pl.start, pl.end)
	if in.Time != nil && in.Time.Compare != nil && supported {
		pl.cmpStart, pl.cmpEnd = compareRange(in.Time.Compare, pl.start, pl.end, loc)
		if !pl.cmpEnd.After(pl.cmpStart) {
			p.add("time.compare.end: must be after time.compare.start")
		}
		supported = supportedRange(&p, in.Time.Compare.members(), pl.cmpStart, pl.cmpEnd) &&
			minuteRange(&p, in.Time.Compare.members(), pl.cmpStart, pl.cmpEnd)
	}
	if !pl.end.After(pl.start) {
		p.add("time.end: must be after time.start")
	}
	var warnings []string
	if g := in.granularity(); g != "" {
		gr := granularities[g]
		if gr.subHour && !scope.SubHour {
			warnings = append(warnings, fmt.Sprintf("granularity %s is not available on the default tier; answered at hour granularity", g))
			gr = granularities["hour"]
		}
		pl.gran = &gr
		if n := gr.seriesLength(pl.start, pl.end, loc); supported && n > maxSeriesSteps {
			p.add("time: range too long for granularity %s; narrow the range or use a coarser granularity", gr.name)
		}
	}
	if len(p) > 0 {
		return nil, nil, apperr.Invalid("The query is invalid.", p...)
	}
	if c := in.convertTo(); c != "" {
		pl.currency = c
	}
	if in.Limit != nil {
		pl.limit = *in.Limit
	}
	if in.Offset != nil {
		pl.offset = *in.Offset
	}
	pl.total = in.Total
	for _, d := range in.dimensions() {
		pl.dims = append(pl.dims, dimensionsByName[d])
	}
	switch {
	case in.trafficReason() != "":
		pl.family = familyBusiness
		pl.items = in.productReason() != ""
	case in.attributedReason() != "":
		pl.family, pl.attributed = familyBusiness, true
	}
	pl.net = in.revenue() == RevenueNet
	for _, f := range in.Fields {
		m := metricsByName[f]
		pl.fields = append(pl.fields, m)
		pl.need(m)
	}
	for _, f := range in.Filters {
		if m := metricsByName[f.Member]; m != nil {
			pl.metricFilters = append(pl.metricFilters, f)
			pl.need(m)
		} else {
			pl.dimFilters = append(pl.dimFilters, f)
		}
	}
	pl.asked = pl.gran
	pl.table = chooseTable(pl.gran, pl.start, pl.end, loc)
	pl.chooseRollup()
	warnings = append(warnings, pl.hourOnly(now)...)
	if pl.reachSummed() {
		warnings = append(warnings, "reach is summed over several days; the sum is an upper bound of the unique reach")
	}
	return pl, warnings, nil
}

// tableName is the plan's family's table at resolution t.
func (p *plan) tableName(t table) string { return p.family.tableName(t) }

func (p *plan) need(m *Metric) {
	for _, n := range m.needs {
		p.measures[n] = true
	}
}

// reachSummed reports whether a reach-based field of this query adds up reach over more than
// one day (networks report reach per day, and unique people do not add up).
func (p *plan) reachSummed() bool {
	asked := false
	for _, m := range p.fields {
		asked = asked || m.reachOnly()
	}
	if !asked || (p.source != "" && p.source != reachSource) {
		return false
	}
	if p.gran != nil && !p.gran.dayBased {
		return false
	}
	if p.gran != nil && p.gran.name == "day" {
		return false
	}
	first, after := dayRange(p.start, p.end, p.loc)
	return after.Sub(first) > 24*time.Hour
}
