package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// The business family's differential test: random queries by traffic and order dimensions
// (with levels, buckets, filters on the dimensions, both revenue bases), the traffic total
// ("dimensions": []) and ad-view queries (no dimensions: the attributed events and orders, read
// from the ad facts or the business family's attributed rows) over the business dataset, against
// what plain Go computes from the rows inserted.

var bizMetrics = []string{"tx_revenue", "tx_count", "tx_count_total", "tx_count_pending", "tx_count_refunded",
	"tx_product_costs", "tx_units", "aov", "page_views", "leads", "initiate_checkout"}

// bizQuery is a random business query and what it means.
type bizQuery struct {
	p          enginetest.BusinessProject
	in         engine.QueryInput
	start, end time.Time
	gran       string
	items, net bool
	attributed bool // the ad view: only the rows attribution linked to an ad entity
}

func randomBizQuery(r *rand.Rand, ds enginetest.BusinessDataset) bizQuery {
	p := pick(r, ds.Projects)
	q := bizQuery{p: p}
	in := &q.in
	in.ProjectID = p.ID
	in.Metadata = &engine.Metadata{}
	for n := 1 + r.Intn(3); len(in.Metadata.Dimensions) < n; {
		if d := pick(r, engine.BusinessDimensions); !in2(d, in.Metadata.Dimensions) {
			in.Metadata.Dimensions = append(in.Metadata.Dimensions, d)
		}
	}
	for n := r.Intn(3); n > 0; n-- {
		in.Filters = append(in.Filters, randomBizFilter(r, ds, pick(r, engine.BusinessDimensions)))
	}
	oneDimension := r.Intn(3) == 0 // about one dimension only: the per-dimension rollups answer
	if oneDimension {
		in.Metadata.Dimensions = in.Metadata.Dimensions[:1]
		for i := range in.Filters {
			in.Filters[i] = randomBizFilter(r, ds, in.Metadata.Dimensions[0])
		}
	}
	switch r.Intn(6) {
	case 0: // the ad view: no dimensions member, no filter on one
		in.Metadata.Dimensions, in.Filters, q.attributed = nil, nil, true
	case 1: // the traffic total
		in.Metadata.Dimensions, in.Filters = []string{}, nil
	}
	for _, d := range append(append([]string{}, in.Metadata.Dimensions...), filterMembers(in.Filters)...) {
		q.items = q.items || d == "product_id" || d == "product_name"
	}
	for n := 1 + r.Intn(3); len(in.Fields) < n; {
		m := pick(r, bizMetrics)
		if !in2(m, in.Fields) && !(q.items && in2(m, []string{"page_views", "leads", "initiate_checkout"})) {
			in.Fields = append(in.Fields, m)
		}
	}
	switch r.Intn(3) {
	case 0:
		in.Metadata.Revenue = "gross"
	case 1:
		in.Metadata.Revenue, q.net = "net", true
	}
	if r.Intn(3) == 0 && !oneDimension {
		in.Metadata.Level = pick(r, []string{"campaign", "ad"})
	}
	switch r.Intn(3) {
	case 0: // whole local days
		s := p.Start.AddDate(0, 0, r.Intn(p.Days))
		e := s.AddDate(0, 0, r.Intn(5))
		in.Time = &engine.TimeSpec{Start: s.Format(time.DateOnly), End: e.Format(time.DateOnly)}
		q.start, q.end = refDayStart(s, p.Loc), refDayStart(e.AddDate(0, 0, 1), p.Loc)
	case 1: // whole local hours
		s := time.Date(p.Start.Year(), p.Start.Month(), p.Start.Day()+r.Intn(p.Days), r.Intn(24), 0, 0, 0, p.Loc)
		e := s.Add(time.Duration(1+r.Intn(72)) * time.Hour)
		in.Time = &engine.TimeSpec{Start: s.Format("2006-01-02T15:04:05"), End: e.In(p.Loc).Format("2006-01-02T15:04:05")}
		q.start, q.end = s.UTC(), e.UTC()
	default: // minutes
		s := refDayStart(p.Start, p.Loc).Add(time.Duration(r.Intn(p.Days*24*60)) * time.Minute)
		e := s.Add(time.Duration(1+r.Intn(72*60)) * time.Minute)
		in.Time = &engine.TimeSpec{Start: s.Format(time.RFC3339), End: e.Format(time.RFC3339)}
		q.start, q.end = s.UTC(), e.UTC()
	}
	if r.Intn(2) == 0 {
		q.gran = pick(r, []string{"15min", "hour", "day", "week", "month"})
		in.Time.Granularity = q.gran
	}
	all := engine.MaxLimit
	in.Limit = &all
	return q
}

func filterMembers(fs []engine.Filter) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Member)
	}
	return out
}

func randomBizFilter(r *rand.Rand, ds enginetest.BusinessDataset, member string) engine.Filter {
	f := engine.Filter{Member: member,
		Operator: pick(r, []string{"equals", "notEquals", "contains", "notContains", "startsWith", "endsWith", "set", "notSet"})}
	if f.Operator == "set" || f.Operator == "notSet" {
		return f
	}
	for n := 1 + r.Intn(2); n > 0; n-- {
		v := ds.Rows[r.Intn(len(ds.Rows))].Dims[f.Member]
		if f.Operator != "equals" && f.Operator != "notEquals" && len(v) > 2 {
			i := r.Intn(len(v) - 1)
			v = strings.ToUpper(v[i : i+1+r.Intn(len(v)-i)])
		}
		if r.Intn(6) == 0 {
			v = pick(r, []string{"", "zz", "goo", "MAIL", "/prod"})
		}
		f.Values = append(f.Values, v)
	}
	return f
}

// bizMatch is the filter's meaning over a stored value (empty when missing), in Go.
func bizMatch(f engine.Filter, v string) bool {
	neg := strings.HasPrefix(f.Operator, "not")
	op := f.Operator
	if neg {
		op = strings.ToLower(op[3:4]) + op[4:]
	}
	hit := false
	if op == "set" {
		hit = v != ""
	}
	for _, x := range f.Values {
		lv, lx := strings.ToLower(v), strings.ToLower(x)
		switch op {
		case "equals":
			hit = hit || v == x
		case "contains":
			hit = hit || strings.Contains(lv, lx)
		case "startsWith":
			hit = hit || strings.HasPrefix(lv, lx)
		case "endsWith":
			hit = hit || strings.HasSuffix(lv, lx)
		}
	}
	return hit != neg
}

// bizRefRow is a reference row: its keys as the answer shows them and its values.
type bizRefRow struct {
	keys   map[string]any
	money  map[string]decimal.Decimal // micros of the answer's currency, by measure column
	counts map[string]int64
	stored map[string]int64 // sums as stored (any currency), for the rows left out as empty
}

// bizReference computes the answer's rows by their key.
func bizReference(ds enginetest.BusinessDataset, q bizQuery) map[string]*bizRefRow {
	p := q.p
	out := map[string]*bizRefRow{}
	level := q.in.Metadata.Level
	for _, r := range ds.Rows {
		ts := r.Time.Truncate(time.Minute)
		if r.ProjectID != p.ID || (r.Kind == "item") != q.items || (q.attributed && r.Source == "") || ts.Before(q.start) || !ts.Before(q.end) {
			continue
		}
		keep := true
		for _, f := range q.in.Filters {
			keep = keep && bizMatch(f, r.Dims[f.Member])
		}
		if !keep {
			continue
		}
		keys := map[string]any{}
		var id []string
		if q.gran != "" {
			keys["date"] = bizBucket(ts, q.gran, p.Loc)
			id = append(id, keys["date"].(string))
		}
		if level != "" {
			v := r.CampaignID
			if level == "ad" {
				v = r.AdID
			}
			keys[level+"_id"], keys[level+"_name"], keys["source"] = nilIfEmpty(v), nil, nilIfEmpty(r.Source)
			id = append(id, v, r.Source)
		}
		for _, d := range q.in.Metadata.Dimensions {
			keys[d] = nilIfEmpty(r.Dims[d])
			id = append(id, r.Dims[d])
		}
		k := strings.Join(id, "|")
		row := out[k]
		if row == nil {
			row = &bizRefRow{keys: keys, money: map[string]decimal.Decimal{}, counts: map[string]int64{}, stored: map[string]int64{}}
			out[k] = row
		}
		rate := bizRate(ds, r, p.Currency)
		for _, m := range enginetest.BusinessMeasures {
			v := r.Values[m]
			if m == "tx_revenue" && q.net {
				v = r.Values["tx_revenue_net"]
			}
			row.stored[m] += v
			row.counts[m] += v
			row.money[m] = row.money[m].Add(decimal.NewFromInt(v).Mul(rate))
		}
	}
	// A row whose measures all sum to 0 as stored is left out (engine: anyData).
	needs := map[string]bool{}
	for _, f := range q.in.Fields {
		needs[f] = true
		if f == "aov" {
			needs["tx_revenue"], needs["tx_count"] = true, true
		}
	}
	for k, row := range out {
		empty := true
		for m := range needs {
			if m != "aov" && row.stored[m] != 0 {
				empty = false
			}
		}
		if empty {
			delete(out, k)
		}
	}
	return out
}

func bizRate(ds enginetest.BusinessDataset, r enginetest.BusinessRow, target string) decimal.Decimal {
	if r.Currency == target {
		return decimal.NewFromInt(1)
	}
	y, m, d := r.Time.In(ds.Loc(r.ProjectID)).Date()
	for _, x := range ds.Rates {
		if x.Base == r.Currency && x.Quote == target && x.Day.Equal(day(y, m, d)) {
			return x.Rate
		}
	}
	panic(fmt.Sprintf("no rate from %s to %s on %d-%d-%d", r.Currency, target, y, m, d))
}

// bizBucket labels the bucket of instant ts: local wall-clock steps for sub-day sizes (the
// test's zones have whole-hour offsets), local dates for the others.
func bizBucket(ts time.Time, gran string, loc *time.Location) string {
	l := ts.In(loc)
	switch gran {
	case "15min":
		return l.Add(-time.Duration(l.Minute()%15) * time.Minute).Format(time.RFC3339)
	case "hour":
		return l.Add(-time.Duration(l.Minute()) * time.Minute).Format(time.RFC3339)
	}
	d := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	switch gran {
	case "week":
		d = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "month":
		d = d.AddDate(0, 0, 1-d.Day())
	}
	return d.Format(time.DateOnly)
}

// bizCompare returns "" when got has the reference's rows: keys exact, counts exact, money
// within a cent (a first page rounds rows cumulatively). An answer keyed by nothing but time
// (no level, no dimension) has its total row, or every bucket, even without facts: such a row
// the reference lacks must show nothing.
func bizCompare(q bizQuery, got *engine.Result, want map[string]*bizRefRow) string {
	keyless := q.in.Metadata.Level == "" && len(q.in.Metadata.Dimensions) == 0
	if !keyless && len(got.Data) != len(want) {
		return fmt.Sprintf("%d rows, want %d", len(got.Data), len(want))
	}
	matched := 0
	index := map[string]*bizRefRow{}
	for _, w := range want {
		index[fmt.Sprint(sortedKeys(w.keys))] = w
	}
	cent := decimal.New(1, 4) // micros
	for i, row := range got.Data {
		keys := map[string]any{}
		for j, k := range row.Keys[:len(row.Keys)-len(q.in.Fields)] {
			keys[k] = row.Values[j]
		}
		w := index[fmt.Sprint(sortedKeys(keys))]
		if w == nil && keyless && emptyRow(row, q.in.Fields) {
			continue
		}
		if w == nil {
			return fmt.Sprintf("row %d %v is not in the reference", i, keys)
		}
		matched++
		for _, f := range q.in.Fields {
			v, _ := row.Get(f)
			switch f {
			case "tx_revenue", "tx_product_costs":
				if m, ok := v.(engine.Money); !ok || m.Shift(6).Sub(w.money[f]).Abs().GreaterThan(cent) {
					return fmt.Sprintf("row %v %s = %v, want %s", keys, f, v, w.money[f].Shift(-6))
				}
			case "aov":
				c := w.counts["tx_count"]
				if c == 0 {
					if v != nil {
						return fmt.Sprintf("row %v aov = %v, want null", keys, v)
					}
					continue
				}
				exact := w.money["tx_revenue"].Div(decimal.NewFromInt(c))
				if m, ok := v.(engine.Money); !ok || m.Shift(6).Sub(exact).Abs().GreaterThan(cent) {
					return fmt.Sprintf("row %v aov = %v, want %s", keys, v, exact.Shift(-6))
				}
			default:
				if v != w.counts[f] {
					return fmt.Sprintf("row %v %s = %v, want %d", keys, f, v, w.counts[f])
				}
			}
		}
	}
	if matched != len(want) {
		return fmt.Sprintf("%d rows match the reference's, want %d", matched, len(want))
	}
	return ""
}

// emptyRow reports whether each of row's fields is 0 or null.
func emptyRow(row engine.Row, fields []string) bool {
	for _, f := range fields {
		switch v, _ := row.Get(f); x := v.(type) {
		case nil:
		case int64:
			if x != 0 {
				return false
			}
		case engine.Money:
			if !x.IsZero() {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]any) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s=%v", k, v))
	}
	sort.Strings(out)
	return out
}

func TestBusinessDifferential(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds := seededBusiness(t, ch.Conn)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	r := rand.New(rand.NewSource(diffSeed))
	failures := 0
	read := map[string]int{} // queries by the business rollup form they read
	for i := 0; i < diffQueries/2 && failures < 5; i++ {
		q := randomBizQuery(r, ds)
		read[bizRollupRead(t, q)]++
		got, err := svc.Query(context.Background(), bizScope(q.p), q.in)
		body := asJSON(q.in)
		if err != nil {
			t.Errorf("query %d %s: %v", i, body, err)
			failures++
			continue
		}
		if msg := bizCompare(q, got, bizReference(ds, q)); msg != "" {
			t.Errorf("query %d %s:\n%s\ngot %s", i, body, msg, truncate(asJSON(got), 2000))
			failures++
		}
	}
	for _, form := range []string{"business_dim_", "business_pair_", "business_dim_entity_"} {
		if read[form] == 0 && failures == 0 {
			t.Errorf("no query read the %s* rollups (%v): the reference does not pin them", form, read)
		}
	}
}

// bizRollupRead is the prefix of the business rollups q's first attempt reads ("business_dim_",
// "business_pair_", "business_dim_entity_"), or "" for the wide tables and raw.
func bizRollupRead(t *testing.T, q bizQuery) string {
	t.Helper()
	c, err := engine.Compile(bizScope(q.p), q.in, testNow)
	if err != nil || len(c.Attempts) == 0 {
		return ""
	}
	sql := c.Attempts[0].Query.SQL
	for _, form := range []string{"business_dim_entity_", "business_pair_", "business_dim_"} {
		if strings.Contains(sql, "FROM "+form) {
			return form
		}
	}
	return ""
}
