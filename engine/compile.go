package engine

import (
	"strconv"
	"strings"
	"time"

	"mtk/facts"
)

// Statement is one SQL statement and its bound arguments (clickhouse-go binds them client-side).
type Statement struct {
	SQL  string
	Args []any
}

// Attempt is one way to answer a query: from one table, with an optional probe.
type Attempt struct {
	// Table is the table read: the fact table, or the credits table when an attribution model
	// credits order metrics (plan.readTable). Its settings and probe are that table's.
	Table string
	// Probe counts the table's rows for the project in the range (for a coarser table, in the
	// whole hours or days inside it). When the first attempt's rows show no facts, the first
	// attempt whose probe finds rows answers, and the first attempt answers when none does. A
	// lone attempt has no probe.
	Probe *Statement
	// Query is the answer's statement. When the attempt has a probe, the statement of the first
	// attempt also says whether its rows hold facts (column has_facts), which makes the probe
	// needless in the usual case.
	Query Statement
	// OneCurrency, for a first page with money, is Query without the exchange-rate join: it sums
	// money as stored, and its fx_missing lists the currencies other than the answer's that carry
	// money. Rows with such money pass the metric filters and come first, so that the page shows
	// one if there is any. When no row lists one (every fact of the range is in the answer's
	// currency, the usual case) its answer is Query's, exactly, for less work on the server;
	// otherwise Query answers.
	OneCurrency *Statement
	// Lean, for a first page with money, is Query without its per-measure missing-rate flags:
	// it converts money as Query does, but its fx_missing only lists the currencies whose rate
	// is missing for some money of the row, and its fx_null_* columns are 0. Rows with such
	// money pass the metric filters and come first, as in OneCurrency. When no row lists one
	// (every rate is known, the usual case) its answer is Query's, exactly, for fewer aggregates
	// on the server (a missing rate's flags cost ClickHouse about a fifth of a dashboard
	// statement); otherwise Query answers.
	Lean *Statement
	// Total, with "total": true, counts Query's rows before limit and offset (total_rows); it
	// runs once this attempt answers.
	Total *Statement
	// Overlap, for order counts by product, says (1 or 0) whether an order of the range has
	// several products, whose counts then sum to more than the orders (a warning); it runs once
	// this attempt answers.
	Overlap *Statement
	// Warnings hold when this attempt answers.
	Warnings []string

	plan *plan
}

// Compiled is a query compiled for its project. It does no I/O and is deterministic.
type Compiled struct {
	// Attempts in order: the table that answers exactly, then coarser ones (raw, hourly, daily)
	// for when it holds no data for the range.
	Attempts []Attempt
	// Warnings hold whichever attempt answers.
	Warnings []string
	// Currency is the currency of the money values.
	Currency string
	// Spans, when set, lists the local days of the range whose ad facts exist only per day. The
	// first attempt's statements read them too (column span_days, plan.spanCheck): where they
	// list none, the usual case, that statement's answer stands; otherwise WithDaySpans gives
	// the Compiled that answers. Spans runs alone only when those statements gave no row.
	Spans *Statement

	plan         *plan
	planWarnings []string
}

// CompileOption changes how Compile plans a query. The service uses none.
type CompileOption func(*plan)

// ForceRaw plans the query on facts_raw whatever table its range allows, so that the query
// benchmark (benchmarks/query) can measure what the rollups save. The answer is the same; only
// the table read (and so the cost) changes.
func ForceRaw() CompileOption { return func(p *plan) { p.table = tableRaw } }

// Compile validates in against scope and compiles it. now is the time for a query without
// `time`. Errors are *apperr.Error for a bad query, plain errors for a bad scope. A Compiled with
// Spans answers only when its day spans turn out to be none; otherwise WithDaySpans gives the
// Compiled that answers.
func Compile(scope Scope, in QueryInput, now time.Time, opts ...CompileOption) (*Compiled, error) {
	p, warnings, err := newPlan(scope, in, now)
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		o(p)
	}
	p.spanCheck = p.needsSpans()
	c := p.compile(warnings)
	if p.spanCheck {
		st := p.spansStatement()
		c.Spans = &st
	}
	return c, nil
}

// WithDaySpans is c answered with the local days (civil dates, in order) that its Spans
// statement listed: those days come whole from the daily table. Its statements no longer read
// the spans.
func (c *Compiled) WithDaySpans(days []time.Time) *Compiled {
	p := *c.plan
	p.spanCheck = false
	if len(days) == 0 {
		return p.compile(c.planWarnings)
	}
	w := p.withSpans(spansOf(days))
	return p.compile(append(append([]string{}, c.planWarnings...), w...))
}

// compile makes the attempts of the plan: its table, then the coarser ones.
func (p *plan) compile(warnings []string) *Compiled {
	c := &Compiled{Warnings: warnings, Currency: p.currency, plan: p, planWarnings: warnings}
	for t := p.table; t <= tableDaily; t++ {
		q := *p
		q.table = t
		q.gran = coarsen(p.gran, t)
		q.flagFacts = t == p.table && t != tableDaily
		q.spanCheck = false
		answer := q // its statements read the day spans too, when they are to be checked
		answer.spanCheck = p.spanCheck && t == p.table
		a := Attempt{Table: q.readTable(t), Query: answer.statement(), plan: &answer}
		if q.total {
			st := q.totalStatement()
			a.Total = &st
		}
		if q.countsOrders() {
			st := q.overlapStatement()
			a.Overlap = &st
		}
		if q.measures.anyMoney() && q.offset == 0 {
			one := answer
			one.oneCurrency = true
			st := one.statement()
			a.OneCurrency = &st
			lean := answer
			lean.leanRates = true
			lst := lean.statement()
			a.Lean = &lst
		}
		if t != p.table {
			a.Warnings = []string{fallbackWarning(p.table, t, p.gran, q.gran, p.start, p.end, p.loc)}
		}
		if p.table != tableDaily {
			pr := q.probe()
			a.Probe = &pr
		}
		c.Attempts = append(c.Attempts, a)
	}
	return c
}

// first is the statement the attempt sends first: its one-currency form when it has one (the
// service skips it for a project known to mix currencies).
func (a Attempt) first() Statement {
	if a.OneCurrency != nil {
		return *a.OneCurrency
	}
	return a.Query
}

// probe counts (up to 1) the table's rows of the project in the range (in its whole hours or
// days for a coarser table).
func (p *plan) probe() Statement {
	return expr("SELECT count() FROM (SELECT 1 FROM "+p.readTable(p.table)+" WHERE project_id = ? AND ? LIMIT 1)",
		p.projectID, p.table.probeFilter(p.start, p.end, p.loc)).statement()
}

// keys are the group keys of the answer's rows.
func (p *plan) keys() []string {
	var k []string
	if p.gran != nil {
		k = append(k, "bucket")
	}
	if p.level != "" {
		k = append(k, "source", p.level+"_id")
	}
	for _, d := range p.dims {
		k = append(k, d.column)
	}
	return k
}

// grouped reports whether the rows are keyed by entity or dimension values: rows then exist
// only for the keys that have facts (no cross product with the time buckets).
func (p *plan) grouped() bool { return p.level != "" || len(p.dims) > 0 }

// statement is the answer's SQL: a first aggregation in the facts' currencies, a second one
// converting money at each day's rate, then the final select that names entities or fills the
// time series, filters on metrics, orders and pages.
func (p *plan) statement() Statement {
	q := p.rows()
	o := p.orderBy()
	if p.voidable() && len(p.keys()) > 0 {
		o = strings.TrimSuffix("notEmpty(fx_missing) DESC, "+o, ", ")
	}
	if o != "" {
		q = expr("? ORDER BY "+o, q)
	}
	return expr("? LIMIT ? OFFSET ?", q, p.limit+1, p.offset).statement()
}

// totalStatement counts the answer's rows before limit and offset (total_rows).
func (p *plan) totalStatement() Statement {
	return expr("SELECT count() FROM (?)", p.rows()).statement()
}

// rows is the answer's rows unordered and unpaged: the statement less ORDER BY and LIMIT.
func (p *plan) rows() fragment {
	var from fragment
	switch {
	case p.level != "":
		from = expr("(?) AS facts ?", p.rollup(), p.namesJoin())
	case len(p.dims) > 0:
		from = expr("(?) AS facts", p.rollup())
	case p.gran != nil:
		var series fragment
		if len(p.spans) > 0 && !p.gran.dayBased {
			series = p.spanSeries()
		} else {
			series = p.gran.seriesSQL(p.zone, p.start, p.end, p.loc)
		}
		from = expr("(?) AS series ANY LEFT JOIN (?) AS facts USING (bucket)", series, p.rollup())
	default:
		from = expr("(?)", p.rollup())
	}
	cols := strings.Join(p.outputColumns(), ", ")
	q := expr("SELECT "+cols+" FROM ?", from)
	if p.spanCheck {
		q = expr("SELECT "+cols+", ? FROM ?", p.spanCheckColumn(), from)
	}
	if len(p.metricFilters) == 0 {
		return q
	}
	conds := make([]fragment, len(p.metricFilters))
	for i, f := range p.metricFilters {
		conds[i] = metricFilter(metricsByName[f.Member], f)
	}
	where := join(" AND ", conds...)
	if p.voidable() {
		where = expr("(?) OR notEmpty(fx_missing)", where)
	}
	return expr("? WHERE ?", q, where)
}

func (p *plan) outputColumns() []string {
	cols := p.keys()
	if p.level != "" {
		cols = append(cols[:len(cols)-len(p.dims)], p.level+"_name")
		for _, d := range p.dims {
			cols = append(cols, d.column)
		}
	}
	for _, m := range p.measures.members() {
		cols = append(cols, m.name)
	}
	if p.measures.anyMoney() {
		cols = append(cols, "fx_missing")
	}
	for _, m := range p.measures.members() {
		if m.money {
			cols = append(cols, fxNullColumn(m.name))
		}
	}
	if p.flagFacts {
		cols = append(cols, "has_facts")
	}
	return cols
}

// rollup is the second aggregation over the first: per row of the answer, every measure
// summed, money converted into the answer's currency at the rate of each fact's day.
func (p *plan) rollup() fragment {
	keys := p.keys()
	var sel []fragment
	for _, k := range keys {
		sel = append(sel, expr(k))
	}
	money := p.measures.anyMoney()
	var moneyNames []string
	for _, m := range p.measures.members() {
		switch {
		case money && m.money && p.oneCurrency:
			sel = append(sel, expr(unconvertedSum(m.name)))
			moneyNames = append(moneyNames, m.name)
		case money && m.money:
			sel = append(sel, convertedSum(m.name, p.currency))
			moneyNames = append(moneyNames, m.name)
		case p.creditsCount(m):
			sel = append(sel, expr("sum(s_"+m.name+") / "+strconv.Itoa(facts.CountUnit)+" AS "+m.name))
		default:
			sel = append(sel, expr("sum(s_"+m.name+") AS "+m.name))
		}
	}
	switch {
	case money && p.oneCurrency:
		sel = append(sel, foreignMoney(p.currency, moneyNames))
	case money && p.leanRates:
		sel = append(sel, rateless(p.currency, moneyNames))
	case money:
		sel = append(sel, fxMissing(p.currency, moneyNames))
	}
	for _, m := range moneyNames {
		if p.voidable() {
			sel = append(sel, expr(noFxNull(m)))
		} else {
			sel = append(sel, fxNull(m, p.currency))
		}
	}
	if p.flagFacts {
		// 0 for a bucket of the series that no fact reached, as for a query without facts.
		sel = append(sel, expr("toUInt8(count() > 0) AS has_facts"))
	}
	q := expr("SELECT ? FROM (?) AS facts", join(", ", sel...), p.firstAggregation())
	if money && !p.oneCurrency {
		first, after := dayRange(p.start, p.end, p.loc)
		q = join(" ", q, fxJoin(p.currency, first.Format("2006-01-02"), after.Format("2006-01-02")))
	}
	if len(keys) > 0 {
		q = expr("? GROUP BY "+strings.Join(keys, ", "), q)
	}
	if p.grouped() {
		q = expr("? HAVING "+p.anyData(), q)
	}
	return q
}

// voidable reports whether the statement assumes what its own fx_missing can void (every money
// in one currency, or every rate known), so that a row listing a currency there must come
// first and pass the metric filters: seen, it makes Query answer instead.
func (p *plan) voidable() bool { return p.oneCurrency || p.leanRates }

// anyData is true for a group whose measures do not all sum to 0 (as stored: money in any
// currency). A level or dimension row without it is left out: the rollups (SummingMergeTree)
// drop a key whose columns all sum to 0 when they merge, current ClickHouse already when it
// inserts, so such a row would come and go with merges and differ between ClickHouse versions.
func (p *plan) anyData() string {
	var parts []string
	for _, m := range p.measures.members() {
		parts = append(parts, "sum(s_"+m.name+") != 0")
	}
	return strings.Join(parts, " OR ")
}

// firstAggregation reads the fact tables: dimension filters and the time range on the stored
// columns, grouped by the answer's keys (and by day and currency when money is converted).
func (p *plan) firstAggregation() fragment {
	if len(p.spans) > 0 && p.table != tableDaily {
		return p.spanBranches()
	}
	return p.aggregate(p.table, p.table.timeFilter(p.start, p.end, p.loc))
}

// aggregate is the first aggregation over table t, whose rows of the range timeCond selects.
func (p *plan) aggregate(t table, timeCond fragment) fragment {
	var sel, group []string
	if p.gran != nil {
		bucket := p.gran.bucketSQL(p.zone)
		if t == tableDaily && !p.gran.dayBased {
			bucket = p.daySpanBucket("day")
		}
		sel = append(sel, bucket+" AS bucket")
		group = append(group, "bucket")
	}
	if p.level != "" {
		sel = append(sel, "source", p.level+"_id")
		group = append(group, "source", p.level+"_id")
	}
	for _, d := range p.dims {
		if c := p.dimColumn(d, t); c != d.column {
			sel = append(sel, c+" AS "+d.column)
		} else {
			sel = append(sel, c)
		}
		group = append(group, d.column)
	}
	switch {
	case p.measures.anyMoney() && p.oneCurrency:
		sel = append(sel, "currency")
		group = append(group, "currency")
	case p.measures.anyMoney():
		sel = append(sel, "day", "currency")
		group = append(group, "day", "currency")
	}
	credit := p.crediting()
	for _, m := range p.measures.members() {
		src := p.sumSource(m)
		if credit {
			src = "v_" + m.name // creditedSource computed it
		}
		sel = append(sel, "sum("+src+") AS s_"+m.name)
	}
	where := append([]fragment{expr("project_id = ?", p.projectID)}, p.kindFilter(t)...)
	cond := join(" AND ", append(append(where, timeCond), p.scopeFilters(t)...)...)
	from := expr(p.tableName(t)+" WHERE ?", cond)
	if credit {
		from = expr("? AS facts_credited", p.creditedSource(t, timeCond, cond))
	}
	sql := "SELECT " + strings.Join(sel, ", ") + " FROM ?"
	if len(group) > 0 {
		sql += " GROUP BY " + strings.Join(group, ", ")
	}
	return expr(sql, from)
}

// sumSource is what the first aggregation sums for m: tx_revenue_net stands for tx_revenue
// under the net revenue basis, so every metric built on it follows.
func (p *plan) sumSource(m measure) string {
	if p.net && m.name == "tx_revenue" {
		return "tx_revenue_net"
	}
	return m.sumSource()
}

// kindFilter picks the business family's rows of one grain (schema 0008): its events and orders,
// or its order lines for a product dimension, never both, so that nothing counts twice. In the
// ad view it keeps the attributed rows (an ad source), those the ad facts hold too. On a
// per-dimension or pair rollup it also picks the rows of the plan's dimension or pair.
func (p *plan) kindFilter(t table) []fragment {
	var out []fragment
	switch {
	case p.family == familyAd:
		return nil
	case p.items:
		out = append(out, expr("kind = 'item'"))
	default:
		out = append(out, expr("kind IN ('event', 'order')"))
	}
	if p.attributed {
		out = append(out, expr("source != ''"))
	}
	return append(out, p.rollupFilter(t)...)
}

// scopeFilters are the conditions of the query's source, connections and dimension filters on
// table t.
func (p *plan) scopeFilters(t table) []fragment {
	var where []fragment
	if p.source != "" {
		where = append(where, expr("source = ?", p.source))
	}
	if len(p.connectionIDs) > 0 {
		where = append(where, stringMatch("connection_id", "equals", p.connectionIDs))
	}
	for _, f := range p.dimFilters {
		d := *dimensionsByName[f.Member]
		d.column = p.dimColumn(&d, t)
		where = append(where, dimensionFilter(p.projectID, &d, f))
	}
	return where
}

// namesJoin attaches the level's latest entity names.
func (p *plan) namesJoin() fragment {
	return expr("ANY LEFT JOIN (SELECT source, entity_id AS "+p.level+"_id, argMax(name, version) AS "+p.level+
		"_name FROM entities WHERE project_id = ? AND level = '"+p.level+"' GROUP BY source, entity_id) AS names USING (source, "+
		p.level+"_id)", p.projectID)
}

// orderBy is the ORDER BY list: the asked order (or time ascending, then the first field
// descending), then every remaining key ascending so that paging is stable.
func (p *plan) orderBy() string {
	var terms []string
	used := map[string]bool{}
	add := func(field, dir string) {
		used[field] = true
		dir = strings.ToUpper(dir)
		switch field {
		case "date":
			terms = append(terms, "bucket "+dir)
		case "source", p.level + "_id", p.level + "_name":
			terms = append(terms, field+" "+dir)
		default:
			if d := dimensionsByName[field]; d != nil {
				terms = append(terms, d.column+" "+dir)
				break
			}
			terms = append(terms, metricsByName[field].sql+" "+dir+" NULLS LAST")
		}
	}
	if len(p.order) > 0 {
		for _, k := range p.order {
			add(k.Field, k.Direction)
		}
	} else {
		if p.gran != nil {
			add("date", "asc")
		}
		if p.gran != nil || p.grouped() {
			add(p.fields[0].Name, "desc")
		}
	}
	if p.gran != nil && !used["date"] {
		add("date", "asc")
	}
	if p.level != "" {
		for _, k := range []string{"source", p.level + "_id"} {
			if !used[k] {
				add(k, "asc")
			}
		}
	}
	for _, d := range p.dims {
		if !used[d.Name] {
			add(d.Name, "asc")
		}
	}
	return strings.Join(terms, ", ")
}
