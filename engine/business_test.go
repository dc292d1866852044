package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// bizProjects are the business tests' projects: Sao Paulo (BRL, with orders and commissions
// in USD and EUR) and New York over its spring-forward (USD, with orders in BRL), in 2025 so
// that their exchange rates do not meet the differential dataset's (the conformance test loads
// both).
var bizProjects = []enginetest.BusinessProject{
	{ID: "prj_biz_sp", TimeZone: "America/Sao_Paulo", Currency: "BRL", Start: day(2025, 3, 1), Days: 12,
		Foreign: []string{"USD", "EUR"}, Events: 500, Orders: 160},
	{ID: "prj_biz_ny", TimeZone: "America/New_York", Currency: "USD", Start: day(2025, 3, 4), Days: 10,
		Foreign: []string{"BRL"}, Events: 500, Orders: 160},
}

// seededBusiness writes the business dataset into a fresh database.
func seededBusiness(t *testing.T, conn driver.Conn) enginetest.BusinessDataset {
	t.Helper()
	ds, err := enginetest.GenerateBusiness(11, bizProjects)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	return ds
}

func bizScope(p enginetest.BusinessProject) engine.Scope {
	return engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.TimeZone, SubHour: true}
}

var (
	bizFields     = []string{"tx_revenue", "tx_count", "tx_count_total", "tx_count_pending", "tx_count_refunded", "tx_product_costs", "page_views", "leads", "initiate_checkout", "tx_units"}
	bizItemFields = []string{"tx_revenue", "tx_product_costs", "tx_units", "tx_count", "tx_count_total"}
)

// bizRanges are a project's ranges of whole days (daily table), whole hours (hourly) and
// minutes (raw).
func bizRanges(p enginetest.BusinessProject) []string {
	first, last := p.Start.Format(time.DateOnly), p.Start.AddDate(0, 0, p.Days-1).Format(time.DateOnly)
	return []string{
		`{"start":"` + first + `","end":"` + last + `"`,
		`{"start":"` + first + `T05:00:00","end":"` + last + `T20:00:00"`,
		`{"start":"` + first + `T07:23:00","end":"` + last + `T15:41:00"`,
	}
}

func bizBody(p enginetest.BusinessProject, fields []string, rng, timeExtra, metadata string) string {
	f, _ := json.Marshal(fields)
	return fmt.Sprintf(`{"project_id":%q,"fields":%s,"time":%s%s},"metadata":{%s}}`, p.ID, f, rng, timeExtra, metadata)
}

// For every traffic and order dimension, at every granularity and over ranges read from each
// table, the rows sum to the traffic total ("dimensions": []), per metric, to the cent; products' money
// and units sum to the orders', and their order counts to at least the orders' (an order of
// several products counts under each, and the answer says so).
func TestBusinessDimensionsSumToTotals(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds := seededBusiness(t, ch.Conn)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	for _, p := range ds.Projects {
		for ri, rng := range bizRanges(p) {
			total := query(t, svc, bizScope(p), bizBody(p, bizFields, rng, "", `"dimensions":[]`))
			want := sumRows(t, total, bizFields)
			if ref := sumRows(t, refTotals(ds, p, rng, bizFields, false, false), bizFields); ref != want {
				t.Fatalf("%s %s: total %s, the rows inserted hold %s", p.ID, rng, want, ref)
			}
			itemTotal := sumRows(t, total, bizItemFields)
			for di, d := range engine.BusinessDimensions {
				product := d == "product_id" || d == "product_name"
				for gi, g := range append([]string{""}, engine.Granularities...) {
					if (di+gi)%3 != ri { // each dimension and granularity over one of the ranges, in turn
						continue
					}
					extra := ""
					if g != "" {
						extra = `,"granularity":"` + g + `"`
					}
					if !product {
						res := query(t, svc, bizScope(p), bizBody(p, bizFields, rng, extra, `"dimensions":["`+d+`"]`))
						if got := sumRows(t, res, bizFields); got != want {
							t.Errorf("%s %s by %s %s: rows sum to %s, total %s", p.ID, rng, d, g, got, want)
						}
						continue
					}
					res := query(t, svc, bizScope(p), bizBody(p, bizItemFields, rng, extra, `"dimensions":["`+d+`"]`))
					got := strings.Fields(strings.Trim(sumRows(t, res, bizItemFields), "[]"))
					orders := strings.Fields(strings.Trim(itemTotal, "[]"))
					if strings.Join(got[:3], " ") != strings.Join(orders[:3], " ") {
						t.Errorf("%s %s by %s %s: products' money and units sum to %s, orders' %s", p.ID, rng, d, g, got, orders)
					}
					for i := 3; i < len(got); i++ {
						if a, b := decimal.RequireFromString(got[i]), decimal.RequireFromString(orders[i]); a.LessThan(b) {
							t.Errorf("%s %s by %s %s: products count %s orders (%s), fewer than the orders' %s", p.ID, rng, d, g, a, bizItemFields[i], b)
						}
					}
					if !hasWarning(res, "several products") {
						t.Errorf("%s %s by %s %s: no warning that order counts overlap: %q", p.ID, rng, d, g, res.Warnings)
					}
				}
			}
		}
	}
}

// withinCent compares two sumRows answers value by value, allowing a cent: a breakdown's first
// page rounds its rows cumulatively, so one row may be a cent off its own rounded amount.
func withinCent(a, b string) bool {
	x, y := strings.Fields(strings.Trim(a, "[]")), strings.Fields(strings.Trim(b, "[]"))
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if d := decimal.RequireFromString(x[i]).Sub(decimal.RequireFromString(y[i])).Abs(); d.GreaterThan(decimal.New(1, -2)) {
			return false
		}
	}
	return true
}

func hasWarning(res *engine.Result, part string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// Dimensions combine with each other, with a level and with time buckets, and filters on them
// keep exactly the rows of their values; missing values are null, and a filter on null is the
// empty value (notSet, or equals "").
func TestBusinessDimensionsCombineAndFilter(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds := seededBusiness(t, ch.Conn)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	p := ds.Projects[0]
	rng := bizRanges(p)[0]
	fields := []string{"tx_revenue", "tx_count", "leads"}
	want := sumRows(t, query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"dimensions":[]`)), fields)
	combined := query(t, svc, bizScope(p), bizBody(p, fields, rng, `,"granularity":"day"`,
		`"level":"campaign","dimensions":["utm_source","device","customer_type"]`))
	if got := sumRows(t, combined, fields); got != want {
		t.Fatalf("campaign × utm_source × device × customer_type by day: %s, total %s", got, want)
	}
	keys := combined.Data[0].Keys
	if strings.Join(keys[:7], " ") != "date campaign_id campaign_name source utm_source device customer_type" {
		t.Fatalf("row keys %v", keys)
	}
	nulls := 0
	for _, r := range combined.Data {
		if v, _ := r.Get("utm_source"); v == nil {
			nulls++
		} else if v == "" {
			t.Fatal("an empty utm_source is shown as \"\", not null")
		}
	}
	if nulls == 0 {
		t.Fatal("no row without utm_source")
	}

	// Each source's row of the breakdown is the answer filtered on that source.
	bySource := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"dimensions":["utm_source"]`))
	for _, r := range bySource.Data {
		v, _ := r.Get("utm_source")
		filter := `[{"member":"utm_source","operator":"notSet"}]`
		if v != nil {
			filter = fmt.Sprintf(`[{"member":"utm_source","operator":"equals","values":[%q]}]`, v)
		}
		body := strings.TrimSuffix(bizBody(p, fields, rng, "", ""), "}") + `,"filters":` + filter + "}"
		if got, w := sumRows(t, query(t, svc, bizScope(p), body), fields), sumRows(t, &engine.Result{Data: []engine.Row{r}}, fields); !withinCent(got, w) {
			t.Errorf("utm_source %v: filtered %s, breakdown row %s", v, got, w)
		}
	}
	// total_rows counts the rows before paging, and pages are the whole answer's head.
	paged := query(t, svc, bizScope(p), strings.TrimSuffix(bizBody(p, fields, rng, "", `"dimensions":["utm_source"]`), "}")+`,"total":true,"limit":2}`)
	if paged.TotalRows == nil || *paged.TotalRows != uint64(len(bySource.Data)) || !paged.HasMore || asJSON(paged.Data) != asJSON(bySource.Data[:2]) {
		t.Errorf("paged by utm_source: total_rows %v of %d rows, page %s", paged.TotalRows, len(bySource.Data), asJSON(paged.Data))
	}
	// equals "" is the null row too; notEquals keeps every other row.
	null := strings.TrimSuffix(bizBody(p, fields, rng, "", ""), "}") + `,"filters":[{"member":"utm_source","operator":"equals","values":[""]}]}`
	notSet := strings.TrimSuffix(bizBody(p, fields, rng, "", ""), "}") + `,"filters":[{"member":"utm_source","operator":"notSet"}]}`
	if a, b := asJSON(query(t, svc, bizScope(p), null).Data), asJSON(query(t, svc, bizScope(p), notSet).Data); a != b {
		t.Errorf("equals \"\" %s, notSet %s", a, b)
	}
	// A product filter reads order lines without grouping by product: the filtered product's row.
	byProduct := query(t, svc, bizScope(p), bizBody(p, []string{"tx_revenue", "tx_units"}, rng, "", `"dimensions":["product_id"]`))
	for _, r := range byProduct.Data {
		v, _ := r.Get("product_id")
		if v == nil {
			continue
		}
		body := strings.TrimSuffix(bizBody(p, []string{"tx_revenue", "tx_units"}, rng, "", ""), "}") +
			fmt.Sprintf(`,"filters":[{"member":"product_id","operator":"equals","values":[%q]}]}`, v)
		if got, w := sumRows(t, query(t, svc, bizScope(p), body), []string{"tx_revenue", "tx_units"}),
			sumRows(t, &engine.Result{Data: []engine.Row{r}}, []string{"tx_revenue", "tx_units"}); !withinCent(got, w) {
			t.Errorf("product %v: filtered %s, breakdown row %s", v, got, w)
		}
	}
}

// Under the net basis every metric built on tx_revenue reads the commission (in its own
// currency, at its day's rate); gross stays the order's value. Both hold in the traffic view
// (every order) and in the ad view (the attributed orders only).
func TestBusinessRevenueBasis(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds := seededBusiness(t, ch.Conn)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	for _, p := range ds.Projects {
		rng := bizRanges(p)[0]
		fields := []string{"tx_revenue", "aov", "tx_count"}
		sums := []string{"tx_revenue", "tx_count"}
		for _, basis := range []string{"gross", "net"} {
			got := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"dimensions":[],"revenue":"`+basis+`"`))
			if a, b := sumRows(t, got, sums), sumRows(t, refTotals(ds, p, rng, sums, basis == "net", false), sums); a != b {
				t.Errorf("%s %s: %s, rows inserted hold %s", p.ID, basis, a, b)
			}
			ad := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"revenue":"`+basis+`"`))
			if a, b := sumRows(t, ad, sums), sumRows(t, refTotals(ds, p, rng, sums, basis == "net", true), sums); a != b {
				t.Errorf("%s %s, ad view: %s, attributed rows inserted hold %s", p.ID, basis, a, b)
			}
			byPayment := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"revenue":"`+basis+`","dimensions":["payment_method"]`))
			if a, b := sumRows(t, byPayment, sums), sumRows(t, got, sums); a != b {
				t.Errorf("%s %s by payment_method: %s, total %s", p.ID, basis, a, b)
			}
			byProduct := query(t, svc, bizScope(p), bizBody(p, []string{"tx_revenue"}, rng, "", `"revenue":"`+basis+`","dimensions":["product_name"]`))
			if a, b := sumRows(t, byProduct, []string{"tx_revenue"}), sumRows(t, got, []string{"tx_revenue"}); a != b {
				t.Errorf("%s %s by product_name: %s, total %s", p.ID, basis, a, b)
			}
		}
		gross := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"dimensions":[],"revenue":"gross"`))
		net := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", `"dimensions":[],"revenue":"net"`))
		if asJSON(gross.Data) == asJSON(net.Data) {
			t.Errorf("%s: net revenue is the gross one: %s", p.ID, asJSON(net.Data))
		}
	}
}

// The view decides what is counted, not the members beside it: for every business metric, with
// and without a level, in either view, "revenue": "gross" answers exactly what omitting it
// answers, and adding tx_units to the fields leaves the others' values as they were. The ad view
// counts the attributed events and orders (whether it reads the ad facts or, for tx_units, the
// business family's attributed rows), the traffic view ("dimensions": []) every one.
func TestBusinessViewsKeepValues(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds := seededBusiness(t, ch.Conn)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	for _, p := range ds.Projects {
		for ri, rng := range bizRanges(p) {
			for _, view := range []string{"", `"dimensions":[]`} {
				for _, level := range []string{"", `"level":"campaign"`, `"level":"ad"`} {
					meta := strings.Trim(strings.Join([]string{view, level}, ","), ",")
					for _, m := range bizMetrics {
						omitted := query(t, svc, bizScope(p), bizBody(p, []string{m}, rng, "", meta))
						gross := query(t, svc, bizScope(p), bizBody(p, []string{m}, rng, "", strings.TrimPrefix(meta+`,"revenue":"gross"`, ",")))
						if a, b := asJSON(omitted.Data), asJSON(gross.Data); a != b || len(omitted.Data) == 0 {
							t.Errorf("%s %s {%s} %s: gross %s, omitted %s", p.ID, rng, meta, m, b, a)
						}
					}
					fields := []string{"tx_revenue", "tx_count", "page_views", "leads"}
					without := query(t, svc, bizScope(p), bizBody(p, fields, rng, "", meta))
					with := query(t, svc, bizScope(p), bizBody(p, append(fields, "tx_units"), rng, "", meta))
					if a, b := sumRows(t, without, fields), sumRows(t, with, fields); a != b || len(with.Data) != len(without.Data) {
						t.Errorf("%s %s {%s}: with tx_units %s (%d rows), without %s (%d rows)", p.ID, rng, meta, b, len(with.Data), a, len(without.Data))
					}
					if level != "" {
						continue
					}
					if a, b := sumRows(t, without, fields), sumRows(t, refTotals(ds, p, rng, fields, false, view == ""), fields); a != b {
						t.Errorf("%s %s {%s}: %s, the rows inserted hold %s", p.ID, rng, meta, a, b)
					}
				}
			}
			if ri > 0 {
				continue
			}
			// The two views differ: the data has unattributed events and orders.
			ad := query(t, svc, bizScope(p), bizBody(p, []string{"tx_revenue", "page_views"}, rng, "", ""))
			traffic := query(t, svc, bizScope(p), bizBody(p, []string{"tx_revenue", "page_views"}, rng, "", `"dimensions":[]`))
			if asJSON(ad.Data) == asJSON(traffic.Data) {
				t.Errorf("%s: the ad view counts every event and order: %s", p.ID, asJSON(ad.Data))
			}
		}
	}
}

// Ad-network metrics (and those built on them) in a query that reads the business family (a
// traffic or order dimension or filter, metadata.dimensions even empty, the net revenue basis or
// tx_units: the business tables hold no spend), and event metrics with a product dimension: 400
// naming the pair.
func TestBusinessRefusedPairs(t *testing.T) {
	scope := engine.Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "UTC"}
	cases := []struct{ body, detail string }{
		{`"fields":["spend","tx_revenue"],"metadata":{"dimensions":["utm_source"]}`,
			`fields[0]: ad-network metric "spend" cannot be asked with dimension "utm_source"`},
		{`"fields":["roas"],"filters":[{"member":"device","operator":"equals","values":["mobile"]}]`,
			`fields[0]: ad-network metric "roas" cannot be asked with dimension "device"`},
		{`"fields":["tx_revenue","profit"],"metadata":{"revenue":"net"}`,
			`fields[1]: ad-network metric "profit" cannot be asked with metadata.revenue "net"`},
		{`"fields":["spend"],"metadata":{"revenue":"net","level":"campaign"}`,
			`fields[0]: ad-network metric "spend" cannot be asked with metadata.revenue "net"`},
		{`"fields":["tx_revenue","roas"],"metadata":{"dimensions":[]}`,
			`fields[1]: ad-network metric "roas" cannot be asked with metadata.dimensions`},
		{`"fields":["tx_units","cpa"]`, `fields[1]: ad-network metric "cpa" cannot be asked with metric "tx_units"`},
		{`"fields":["tx_revenue"],"filters":[{"member":"impressions","operator":"gt","values":["1"]}],"metadata":{"dimensions":["customer_type"]}`,
			`filters[0]: ad-network metric "impressions" cannot be asked with dimension "customer_type"`},
		{`"fields":["tx_revenue","leads"],"metadata":{"dimensions":["product_id"]}`,
			`fields[1]: event metric "leads" cannot be asked with dimension "product_id" (products are order lines)`},
		{`"fields":["page_views"],"filters":[{"member":"product_name","operator":"contains","values":["a"]}]`,
			`fields[0]: event metric "page_views" cannot be asked with dimension "product_name" (products are order lines)`},
		{`"fields":["tx_revenue"],"metadata":{"dimensions":["source"]}`,
			`metadata.dimensions[0]: unknown dimension "source"; want one of ` + strings.Join(engine.BusinessDimensions, ", ")},
		{`"fields":["tx_revenue"],"metadata":{"dimensions":["device","device"]}`, `metadata.dimensions[1]: duplicate dimension "device"`},
		{`"fields":["tx_revenue"],"metadata":{"revenue":"commission"}`, `metadata.revenue: unknown revenue basis "commission"; want gross or net`},
		{`"fields":["spend"],"metadata":{"dimensions":["device","device","device","device","device","device","device","device","device","device","device","device","device"]}`,
			`metadata.dimensions: 13 dimensions, at most 12`},
		{`"fields":["tx_revenue"],"order":{"device":"asc"}`, `order.device: not a field or key of the rows`},
	}
	for _, c := range cases {
		body := `{"project_id":"prj_1",` + c.body + `,"time":{"start":"2024-03-01","end":"2024-03-02"}}`
		_, err := engine.Compile(scope, mustInput(t, body), testNow)
		e, ok := apperr.As(err)
		if !ok || e.Code != apperr.CodeInvalidParameter || len(e.Details) != 1 || e.Details[0] != apperr.CutLine(c.detail) { // a line is at most 200 characters
			t.Errorf("%s: %v, want invalid_parameter %q", body, err, c.detail)
		}
	}
	// In the ad view ad and business metrics mix as before, the default basis stated or not; in
	// the traffic view business metrics alone pass.
	for _, body := range []string{`"fields":["spend","tx_revenue","roas"]`, `"fields":["spend","profit"],"metadata":{"revenue":"gross"}`,
		`"fields":["tx_revenue","aov","tx_units"],"metadata":{"dimensions":["product_id","utm_source"],"revenue":"net"},"order":{"product_id":"asc"}`} {
		if _, err := engine.Compile(scope, mustInput(t, `{"project_id":"prj_1",`+body+`,"time":{"start":"2024-03-01","end":"2024-03-02"}}`), testNow); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// refTotals is the answer without dimensions that the inserted rows make, computed in Go: the
// events and orders of p in the range (only the attributed ones: the ad view), money converted
// at each day's rate into p's currency.
func refTotals(ds enginetest.BusinessDataset, p enginetest.BusinessProject, rng string, fields []string, net, attributed bool) *engine.Result {
	var tm struct{ Start, End string }
	_ = json.Unmarshal([]byte(rng+"}"), &tm)
	start, end := refBound(tm.Start, p.Loc, false), refBound(tm.End, p.Loc, true)
	row := engine.Row{}
	for _, f := range fields {
		var money decimal.Decimal
		var count int64
		for _, r := range ds.Rows {
			if r.ProjectID != p.ID || r.Kind == "item" || (attributed && r.Source == "") ||
				r.Time.Truncate(time.Minute).Before(start) || !r.Time.Truncate(time.Minute).Before(end) {
				continue
			}
			col := f
			if net && f == "tx_revenue" {
				col = "tx_revenue_net"
			}
			v := r.Values[col]
			if f == "tx_revenue" || f == "tx_product_costs" {
				money = money.Add(decimal.NewFromInt(v).Mul(refRate(ds, p, r)))
			} else {
				count += v
			}
		}
		row.Keys = append(row.Keys, f)
		if f == "tx_revenue" || f == "tx_product_costs" {
			row.Values = append(row.Values, engine.Money{Decimal: money.Shift(-6).Round(2)})
		} else {
			row.Values = append(row.Values, count)
		}
	}
	return &engine.Result{Data: []engine.Row{row}}
}

// refRate is the rate of r's day from r's currency into p's.
func refRate(ds enginetest.BusinessDataset, p enginetest.BusinessProject, r enginetest.BusinessRow) decimal.Decimal {
	if r.Currency == p.Currency {
		return decimal.NewFromInt(1)
	}
	y, m, d := r.Time.In(p.Loc).Date()
	for _, x := range ds.Rates {
		if x.Base == r.Currency && x.Quote == p.Currency && x.Day.Equal(day(y, m, d)) {
			return x.Rate
		}
	}
	panic(fmt.Sprintf("no rate %s %s", r.Currency, r.Time))
}

// refBound reads a test range's bound: a date (its day's start; an end includes the day) or a
// local date-time.
func refBound(s string, loc *time.Location, end bool) time.Time {
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		if end {
			d = d.AddDate(0, 0, 1)
		}
		return refDayStart(d, loc)
	}
	t, err := time.ParseInLocation("2006-01-02T15:04:05", s, loc)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

// A comparison pairs rows by their dimension values too: each row's compare is the previous
// period's row of the same values, as that period queried alone answers it.
func TestBusinessCompareByDimension(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds := seededBusiness(t, ch.Conn)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	p := ds.Projects[0]
	meta := `"dimensions":["utm_source","payment_method"],"level":"campaign"`
	fields := []string{"tx_revenue", "tx_count"}
	second, prev := `{"start":"2025-03-07","end":"2025-03-12"`, `{"start":"2025-03-01","end":"2025-03-06"`
	got := query(t, svc, bizScope(p), bizBody(p, fields, second, `,"compare":"previous_period"`, meta))
	alone := query(t, svc, bizScope(p), bizBody(p, fields, prev, "", meta))
	byKey := map[string]engine.Row{}
	key := func(r engine.Row) string {
		return asJSON(r.Values[:len(r.Values)-len(fields)])
	}
	for _, r := range alone.Data {
		byKey[key(r)] = r
	}
	matched := 0
	for _, r := range got.Data {
		want := []any{nil, nil}
		if a, ok := byKey[key(r)]; ok {
			want = a.Values[len(a.Values)-len(fields):]
			matched++
		}
		if asJSON(r.Compare) != asJSON(want) {
			t.Fatalf("row %s compares with %s, want %s", key(r), asJSON(r.Compare), asJSON(want))
		}
	}
	if matched == 0 || got.CompareTime == nil {
		t.Fatalf("no row found its comparison: %s", asJSON(got))
	}
}
