package engine_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }

// diffConfig has three projects: a Sao Paulo one over the 2018 DST start (a day without
// midnight), a New York one over the 2024 spring-forward, and a Kolkata (+05:30) one; accounts
// in BRL, USD and EUR. Ad facts are shaped as sync leaves them at each project's "now" (diffNow):
// minutes today, hours for the days before (fewer for one connection made later), days before
// those.
var diffConfig = enginetest.Config{Seed: 42, Projects: []enginetest.ProjectSpec{
	{ID: "prj_sp", TimeZone: "America/Sao_Paulo", Currency: "BRL", Start: day(2018, 10, 28), Days: 13,
		AccountCurrencies: map[string]string{"beta_ads": "USD", "gamma_ads": "EUR"},
		SyncedAt:          diffNowSP, HourlyDays: map[string]int{"gamma_ads": 2}},
	{ID: "prj_ny", TimeZone: "America/New_York", Currency: "USD", Start: day(2024, 3, 5), Days: 12,
		AccountCurrencies: map[string]string{"beta_ads": "BRL"}, SyncedAt: diffNow},
	{ID: "prj_in", TimeZone: "Asia/Kolkata", Currency: "EUR", Start: day(2024, 3, 5), Days: 12,
		AccountCurrencies: map[string]string{"beta_ads": "USD", "gamma_ads": "BRL"}, SyncedAt: diffNow,
		HourlyDays: map[string]int{"beta_ads": 4}},
},
	// Rates a provider left out: money that needs them is null.
	MissingRates: []enginetest.RateKey{{Day: day(2024, 3, 8), Base: "BRL", Quote: "USD"},
		{Day: day(2024, 3, 12), Base: "BRL", Quote: "USD"}, {Day: day(2024, 3, 10), Base: "USD", Quote: "EUR"},
		{Day: day(2018, 11, 3), Base: "EUR", Quote: "BRL"}},
}

// diffNow is "now" for the differential test's projects; diffNowSP for the Sao Paulo one.
var (
	diffNow   = time.Date(2024, 3, 16, 15, 0, 0, 0, time.UTC)
	diffNowSP = time.Date(2018, 11, 9, 12, 0, 0, 0, time.UTC)
)

// refDayStart finds the first instant of a local date by walking in 15-minute steps, so that it
// does not share code with the engine.
func refDayStart(d time.Time, loc *time.Location) time.Time {
	t := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc).Add(-3 * time.Hour)
	for {
		l := t.In(loc)
		if l.Year() == d.Year() && l.Month() == d.Month() && l.Day() == d.Day() {
			return t.UTC()
		}
		t = t.Add(15 * time.Minute)
	}
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.Intn(len(xs))] }

// randomQuery makes a query and what it means.
func randomQuery(r *rand.Rand, ds *enginetest.Dataset, p enginetest.Project, now time.Time) refQuery {
	q := refQuery{loc: p.Loc, target: p.Currency}
	q.scope = engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.TimeZone, SubHour: true, ConnectionIDs: p.ConnectionIDs}
	if r.Intn(5) == 0 {
		q.scope.SubHour = false
	}
	in := &q.in
	in.ProjectID = p.ID
	metrics := adFamilyFields()
	for n := 1 + r.Intn(4); len(in.Fields) < n; {
		m := pick(r, metrics.Metrics).Name
		if !in2(m, in.Fields) {
			in.Fields = append(in.Fields, m)
		}
	}
	if r.Intn(4) == 0 {
		in.Source = pick(r, engine.Sources)
	}
	if r.Intn(7) == 0 {
		in.ConnectionIDs = []string{pick(r, p.ConnectionIDs)}
	}
	span := time.Duration(0)
	switch r.Intn(7) {
	case 0: // no time: the last 30 local days
		today := now.In(p.Loc)
		d := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, time.UTC)
		q.start, q.end = refDayStart(d.AddDate(0, 0, -29), p.Loc), refDayStart(d.AddDate(0, 0, 1), p.Loc)
	case 1, 2, 3: // whole local days
		s := p.Start.AddDate(0, 0, r.Intn(p.Days+1)-1)
		e := s.AddDate(0, 0, r.Intn(6))
		in.Time = &engine.TimeSpec{Start: s.Format("2006-01-02"), End: e.Format("2006-01-02")}
		q.start, q.end = refDayStart(s, p.Loc), refDayStart(e.AddDate(0, 0, 1), p.Loc)
	case 4, 5: // local date-times on whole hours, without an offset
		s := time.Date(p.Start.Year(), p.Start.Month(), p.Start.Day()+r.Intn(p.Days), r.Intn(24), 0, 0, 0, p.Loc)
		e := s.Add(time.Duration(1+r.Intn(60)) * time.Hour)
		in.Time = &engine.TimeSpec{Start: s.Format("2006-01-02T15:04:05"), End: e.In(p.Loc).Format("2006-01-02T15:04:05")}
		q.start, q.end = s.UTC(), e.UTC()
	default: // RFC 3339 instants at any minute, with some offset
		s := refDayStart(p.Start, p.Loc).Add(time.Duration(r.Intn(p.Days*24*60)) * time.Minute)
		e := s.Add(time.Duration(1+r.Intn(48*60)) * time.Minute)
		off := time.FixedZone("", (r.Intn(27)-12)*3600)
		in.Time = &engine.TimeSpec{Start: s.In(off).Format(time.RFC3339), End: e.In(off).Format(time.RFC3339)}
		q.start, q.end = s.UTC(), e.UTC()
	}
	span = q.end.Sub(q.start)
	if r.Intn(5) < 3 {
		g := pick(r, engine.Granularities)
		if span > 80*time.Hour && (g == "5min" || g == "10min") {
			g = "hour"
		}
		if in.Time == nil {
			in.Time = &engine.TimeSpec{Start: q.start.Format(time.RFC3339), End: q.end.Format(time.RFC3339)}
		}
		in.Time.Granularity = g
		q.gran = g
		if !q.scope.SubHour && in2(g, []string{"5min", "10min", "15min", "30min"}) {
			q.gran = "hour"
		}
	}
	if r.Intn(2) == 0 {
		in.Metadata = &engine.Metadata{Level: pick(r, engine.Levels)}
	}
	if r.Intn(5) < 2 {
		if in.Metadata == nil {
			in.Metadata = &engine.Metadata{}
		}
		// GBP has no rate at all.
		in.Metadata.ConvertToCurrency = pick(r, append([]string{"GBP"}, enginetest.Currencies...))
		q.target = in.Metadata.ConvertToCurrency
	}
	for n := r.Intn(3); n > 0; n-- {
		in.Filters = append(in.Filters, randomFilter(r, ds, p, metrics))
	}
	if r.Intn(3) == 0 {
		keys := append([]string{}, in.Fields...)
		keys = append(keys, rowKeys(*in)...)
		for n := 1 + r.Intn(2); n > 0; n-- {
			k := pick(r, keys)
			if !hasOrder(in.Order, k) {
				in.Order = append(in.Order, engine.OrderKey{Field: k, Direction: pick(r, []string{"asc", "desc", "DESC"})})
			}
		}
	}
	if r.Intn(2) == 0 {
		l := 1 + r.Intn(30)
		in.Limit = &l
	}
	if r.Intn(3) == 0 {
		o := r.Intn(6)
		in.Offset = &o
	}
	in.Total = r.Intn(3) == 0
	return q
}

func in2(s string, list []string) bool { return in(s, list) }

// adFamilyFields are the metrics and dimensions of the ad facts, which this test's dataset
// holds: not the traffic and order dimensions, nor tx_units (the business family's, which
// TestBusinessDifferential covers).
func adFamilyFields() *engine.FieldList {
	all, _ := engine.Fields("")
	out := *all
	out.Metrics, out.Dimensions = nil, nil
	for _, m := range all.Metrics {
		if m.Name != "tx_units" {
			out.Metrics = append(out.Metrics, m)
		}
	}
	for _, d := range all.Dimensions {
		if !in2(d.Name, engine.BusinessDimensions) {
			out.Dimensions = append(out.Dimensions, d)
		}
	}
	return &out
}

func hasOrder(o engine.Order, k string) bool {
	for _, x := range o {
		if x.Field == k {
			return true
		}
	}
	return false
}

func randomFilter(r *rand.Rand, ds *enginetest.Dataset, p enginetest.Project, fl *engine.FieldList) engine.Filter {
	if r.Intn(2) == 0 {
		m := pick(r, fl.Metrics)
		f := engine.Filter{Member: m.Name, Operator: pick(r, []string{"equals", "notEquals", "gt", "gte", "lt", "lte", "set", "notSet"})}
		if f.Operator == "set" || f.Operator == "notSet" {
			return f
		}
		scale := map[string]float64{engine.UnitMoney: 300, engine.UnitCount: 20000, engine.UnitRatio: 1}[m.Unit]
		for n := 1 + r.Intn(2); n > 0; n-- {
			f.Values = append(f.Values, fmt.Sprintf("%.2f", r.Float64()*scale))
		}
		if r.Intn(5) == 0 {
			f.Values = append(f.Values, "0")
		}
		return f
	}
	d := pick(r, fl.Dimensions)
	f := engine.Filter{Member: d.Name, Operator: pick(r, []string{"equals", "notEquals", "contains", "notContains", "startsWith", "endsWith", "set", "notSet"})}
	if f.Operator == "set" || f.Operator == "notSet" {
		return f
	}
	names := map[string]string{}
	for _, e := range ds.Entities {
		names[e.Level+"|"+e.ID] = e.Name
	}
	for n := 1 + r.Intn(2); n > 0; n-- {
		var v string
		switch r.Intn(3) {
		case 0:
			v = pick(r, []string{"summer", "RENAMED", "Video", "_c1", "alpha", "Audience 1", "zz", "Creative 1", "_a0", "con_"})
		default:
			for v == "" || r.Intn(4) != 0 {
				fact := ds.Facts[r.Intn(len(ds.Facts))]
				if fact.ProjectID == p.ID {
					v, _ = dimValue(fact, f.Member, names)
					break
				}
			}
			if f.Operator != "equals" && f.Operator != "notEquals" && len(v) > 3 {
				i := r.Intn(len(v) - 2)
				v = v[i : i+2+r.Intn(len(v)-i-1)]
			}
		}
		f.Values = append(f.Values, v)
	}
	return f
}

// diffSeed and diffQueries can be raised for a longer hunt: go test -run Differential -args -diff.queries 5000
var (
	diffSeed    = int64(7)
	diffQueries = 400
)

func init() {
	flag.Int64Var(&diffSeed, "diff.seed", diffSeed, "seed of the differential test's queries")
	flag.IntVar(&diffQueries, "diff.queries", diffQueries, "number of differential queries")
}

func TestDifferential(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds, err := enginetest.Generate(diffConfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := ds.Write(ctx, ch.Conn); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewSource(diffSeed))
	failures := 0
	queries := diffQueries
	// seen counts the resolutions the queries reached, so that the test shows it covers them.
	seen := map[string]int{}
	for i := 0; i < queries && failures < 5; i++ {
		p := pick(r, ds.Projects)
		pnow := p.SyncedAt
		svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(pnow)})
		q := resolve(ds, randomQuery(r, ds, p, pnow))
		want, wantMore, _ := reference(ds, q)
		seen["table "+q.table]++
		if len(q.spans) > 0 {
			seen["with day spans"]++
		}
		if q.gran != q.asked {
			seen["sub-hour answered at hour"]++
		}
		got, err := svc.Query(ctx, q.scope, q.in)
		body, _ := json.Marshal(q.in)
		if err != nil {
			t.Errorf("query %d %s: %v", i, body, err)
			failures++
			continue
		}
		msg := compare(q, got, want, wantMore)
		if msg == "" && q.in.Total {
			// total_rows is the reference's rows of the query without paging.
			all := q
			all.in.Limit, all.in.Offset = new(int), nil
			*all.in.Limit = 50000
			rows, _, _ := reference(ds, all)
			if got.TotalRows == nil || *got.TotalRows != uint64(len(rows)) {
				msg = fmt.Sprintf("total_rows %v, want %d", got.TotalRows, len(rows))
			}
		}
		if msg != "" {
			gotJSON, _ := json.Marshal(got)
			t.Errorf("query %d %s (%s):\n%s\ngot %s", i, body, p.TimeZone, msg, truncate(string(gotJSON), 3000))
			failures++
		}
	}
	t.Logf("resolutions reached: %v", seen)
	for _, k := range []string{"table raw", "table hour", "table day", "with day spans", "sub-hour answered at hour"} {
		if seen[k] == 0 && queries >= 100 {
			t.Errorf("no query reached %q: the generator no longer covers it", k)
		}
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// compare returns "" when got matches the reference.
func compare(q refQuery, got *engine.Result, want []refRow, wantMore bool) string {
	if got.HasMore != wantMore {
		return fmt.Sprintf("has_more %v, want %v", got.HasMore, wantMore)
	}
	if len(q.spans) > 0 && q.gran != "" && !in(q.gran, dayGrans) && !strings.Contains(strings.Join(got.Warnings, "\n"), spanDates(q.spans)) {
		return fmt.Sprintf("warnings %q do not name the day spans %s", got.Warnings, spanDates(q.spans))
	}
	if len(got.Data) != len(want) {
		return fmt.Sprintf("%d rows, want %d (first want %s)", len(got.Data), len(want), describe(q, want))
	}
	level := ""
	if q.in.Metadata != nil {
		level = q.in.Metadata.Level
	}
	for i, w := range want {
		row := got.Data[i]
		expect := map[string]any{}
		var keys []string
		if q.gran != "" {
			keys = append(keys, "date")
			switch {
			case in(q.gran, dayGrans):
				expect["date"] = w.bucket.Format("2006-01-02")
			case w.mark == "day":
				expect["date"] = w.bucket.In(q.loc).Format("2006-01-02")
			default:
				expect["date"] = w.bucket.In(q.loc).Format(time.RFC3339)
			}
			if w.mark != "" {
				keys = append(keys, "granularity")
				expect["granularity"] = w.mark
			}
		}
		if level != "" {
			keys = append(keys, level+"_id", level+"_name", "source")
			expect[level+"_id"], expect[level+"_name"], expect["source"] = nilIfEmpty(w.id), nilIfEmpty(w.name), w.source
		}
		keys = append(keys, q.in.Fields...)
		if fmt.Sprint(row.Keys) != fmt.Sprint(keys) {
			return fmt.Sprintf("row %d keys %v, want %v", i, row.Keys, keys)
		}
		for _, k := range keys {
			g, _ := row.Get(k)
			e, ok := expect[k]
			if !ok {
				e = w.values[k]
			}
			if !same(g, e) {
				return fmt.Sprintf("row %d (%v %s %s) %s = %v, want %v", i, expect["date"], w.source, w.id, k, show(g), show(e))
			}
		}
	}
	return ""
}

func describe(q refQuery, rows []refRow) string {
	if len(rows) == 0 {
		return "none"
	}
	return fmt.Sprintf("%v %s %s", rows[0].bucket, rows[0].source, rows[0].id)
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func show(v any) any {
	if f, ok := v.(*float64); ok && f != nil {
		return *f
	}
	return v
}

func same(got, want any) bool {
	switch w := want.(type) {
	case nil:
		return got == nil
	case string:
		if m, ok := got.(engine.Money); ok {
			return m.StringFixed(2) == w
		}
		s, ok := got.(string)
		return ok && s == w
	case int64:
		g, ok := got.(int64)
		return ok && g == w
	case *float64:
		g, _ := got.(*float64)
		if w == nil || g == nil {
			return w == nil && g == nil
		}
		return close(*g, *w)
	}
	return false
}

// rowKeys are the keys a row of in carries besides its fields.
func rowKeys(in engine.QueryInput) []string {
	var keys []string
	if in.Time != nil && in.Time.Granularity != "" {
		keys = append(keys, "date")
	}
	if in.Metadata != nil && in.Metadata.Level != "" {
		l := in.Metadata.Level
		keys = append(keys, l+"_id", l+"_name", "source")
	}
	return keys
}
