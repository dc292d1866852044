package engine_test

import (
	"cmp"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/facts"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// journey is one row of a project's journeys, as the journey outbox writes it.
type journey struct {
	kind, lead, order string
	at                time.Time
	ad                string          // a touch's ad (campaign "c"+ad unless camp, adset "s"+ad); none: no ad
	src, camp         string          // a touch's source (alpha_ads when empty) and campaign
	dims              facts.TouchDims // a touch's traffic dimensions
	currency          string          // an order's (USD when empty)
	revenue, count    int64           // an order's micros and approved count (signed)
	total, refunded   int64
}

// entity is a touch's ad entity: ad's, on connection con_1 and account act_1 (zero: no ad).
func (j journey) entity() facts.AdEntity {
	if j.ad == "" {
		return facts.AdEntity{}
	}
	return facts.AdEntity{Source: cmp.Or(j.src, "alpha_ads"), ConnectionID: "con_1", AccountID: "act_1",
		CampaignID: cmp.Or(j.camp, "c"+j.ad), AdsetID: "s" + j.ad, AdID: j.ad}
}

// writeCredits stores what production derives from js: each order's credits under every model
// (enginetest.OrderJourneys, facts.Credits), at their local hours and days in zone.
func writeCredits(t testing.TB, conn driver.Conn, project, zone string, js []journey) {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]enginetest.JourneyRow, len(js))
	for i, j := range js {
		r := enginetest.JourneyRow{Kind: j.kind, Time: j.at, Lead: j.lead, Order: j.order, Currency: "USD",
			Values: facts.Values{facts.TxRevenue: j.revenue, facts.TxCount: j.count, facts.TxCountTotal: j.total, facts.TxCountRefunded: j.refunded}}
		if j.currency != "" {
			r.Currency = j.currency
		}
		r.Dims = j.dims
		if j.kind == enginetest.KindTouch {
			r.Entity = j.entity()
		}
		rows[i] = r
	}
	if err := enginetest.InsertJourneyCredits(context.Background(), conn, project, loc, enginetest.OrderJourneys(rows)); err != nil {
		t.Fatal(err)
	}
}

func utc(m time.Month, d, h int) time.Time { return time.Date(2024, m, d, h, 0, 0, 0, time.UTC) }

const dollar = 1_000_000

// handJourneys: L1 touches A1, A2, A3 a week apart and buys $100 (O1) a day after the last, then
// $10 (O4) refunded after the sale; L2 touches A1 and buys $50 (O2); L3's only touch is 71 days
// before its $30 order (O3); O5 ($20) is L2's, then re-attributed to L1, 3 and 10 days after
// L1's first two touches.
var handJourneys = []journey{
	{kind: "touch", lead: "L1", at: utc(3, 1, 10), ad: "A1"},
	{kind: "touch", lead: "L1", at: utc(3, 8, 10), ad: "A2"},
	{kind: "touch", lead: "L1", at: utc(3, 14, 10), ad: "A3"},
	{kind: "order", lead: "L1", order: "O1", at: utc(3, 15, 10), revenue: 100 * dollar, count: 1, total: 1},
	{kind: "order", lead: "L1", order: "O4", at: utc(3, 20, 10), revenue: 10 * dollar, count: 1, total: 1},
	{kind: "order", lead: "L1", order: "O4", at: utc(3, 20, 10), revenue: -10 * dollar, count: -1, total: -1},
	{kind: "order", lead: "L1", order: "O4", at: utc(3, 20, 10), total: 1, refunded: 1},
	{kind: "touch", lead: "L2", at: utc(3, 10, 0), ad: "A1"},
	{kind: "order", lead: "L2", order: "O2", at: utc(3, 10, 12), revenue: 50 * dollar, count: 1, total: 1},
	{kind: "touch", lead: "L3", at: utc(1, 1, 10), ad: "A2"},
	{kind: "order", lead: "L3", order: "O3", at: utc(3, 12, 10), revenue: 30 * dollar, count: 1, total: 1},
	{kind: "order", lead: "L2", order: "O5", at: utc(3, 11, 10), revenue: 20 * dollar, count: 1, total: 1},
	{kind: "order", lead: "L2", order: "O5", at: utc(3, 11, 10), revenue: -20 * dollar, count: -1, total: -1},
	{kind: "order", lead: "L1", order: "O5", at: utc(3, 11, 10), revenue: 20 * dollar, count: 1, total: 1},
}

func attributionService(t *testing.T) (*engine.Service, engine.Scope) {
	ch := testenv.ClickHouse(t)
	writeCredits(t, ch.Conn, "prj_j", "UTC", handJourneys)
	return engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)}),
		engine.Scope{ProjectID: "prj_j", Currency: "USD", TimeZone: "UTC", SubHour: true}
}

// decay is time_decay's weight of a touch dt before the order.
func decay(dt time.Duration) float64 { return math.Pow(2, -dt.Hours()/(7*24)) }

// byAd answers fields by ad and returns each ad's values, and the total without level.
func byAd(t *testing.T, svc *engine.Service, scope engine.Scope, attribution, timeSpec string) (map[string][2]float64, [2]float64) {
	t.Helper()
	ads := map[string][2]float64{}
	res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue","tx_count"],"time":`+timeSpec+
		`,"metadata":{"level":"ad","attribution":`+attribution+`},"order":{"ad_id":"asc"}}`)
	for _, r := range res.Data {
		id, _ := r.Get("ad_id")
		ads[id.(string)] = values(t, r)
	}
	tot := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue","tx_count"],"time":`+timeSpec+
		`,"metadata":{"attribution":`+attribution+`}}`)
	return ads, values(t, tot.Data[0])
}

func values(t *testing.T, r engine.Row) [2]float64 {
	rev, _ := r.Get("tx_revenue")
	cnt, _ := r.Get("tx_count")
	if c, ok := cnt.(int64); ok {
		return [2]float64{rev.(engine.Money).InexactFloat64(), float64(c)}
	}
	return [2]float64{rev.(engine.Money).InexactFloat64(), *cnt.(*float64)}
}

// TestAttributionHandJourneys checks every model on hand-computed journeys: one touch, three,
// two, a touch outside the window, several orders of one lead, a refund after the sale and a
// re-attributed order; the ad view's total is the ads' credits (the unattributed order, $30 and
// one count, is in no ad-view total), $170 and 3 orders by conversion date.
func TestAttributionHandJourneys(t *testing.T) {
	svc, scope := attributionService(t)
	month := `{"start":"2024-03-01","end":"2024-03-31"}`
	td1 := []float64{decay(14 * 24 * time.Hour), decay(7 * 24 * time.Hour), decay(24 * time.Hour)}
	s1 := td1[0] + td1[1] + td1[2]
	// O5's touches are 10 and 3 days before it: weights 2^(-10/7) and 2^(-3/7), a third and two.
	cases := []struct {
		model string
		want  map[string][2]float64
	}{
		{"last_click", map[string][2]float64{"A1": {50, 1}, "A2": {20, 1}, "A3": {100, 1}}},
		{"first_click", map[string][2]float64{"A1": {170, 3}}},
		// Counts in micro units, cumulative: O1's thirds are 0.333333, 0.333333 and 0.333334,
		// each shown as 0.3333.
		{"linear", map[string][2]float64{"A1": {100.0/3 + 50 + 10, 0.3333 + 1 + 0.5}, "A2": {100.0/3 + 10, 0.3333 + 0.5},
			"A3": {100.0 / 3, 0.3333}}},
		{"position_based", map[string][2]float64{"A1": {40 + 50 + 10, 0.4 + 1 + 0.5}, "A2": {20 + 10, 0.2 + 0.5}, "A3": {40, 0.4}}},
		{"time_decay", map[string][2]float64{"A1": {100*td1[0]/s1 + 50 + 20.0/3, td1[0]/s1 + 1 + 1.0/3},
			"A2": {100*td1[1]/s1 + 40.0/3, td1[1]/s1 + 2.0/3}, "A3": {100 * td1[2] / s1, td1[2] / s1}}},
	}
	for _, c := range cases {
		for _, attr := range []string{`{"model":"` + c.model + `"}`, `{"model":"` + c.model + `","window_days":28,"date":"conversion"}`} {
			ads, total := byAd(t, svc, scope, attr, month)
			checkCredits(t, attr, ads, c.want)
			if total != [2]float64{170, 3} {
				t.Errorf("%s: total %v, want $170 and 3 orders", attr, total)
			}
			var credited [2]float64
			for _, v := range ads {
				credited[0] += v[0]
				credited[1] += v[1]
			}
			// Each row's count is its exact sum rounded to 4 decimals: within half a unit of it.
			if math.Abs(credited[0]-total[0]) > 0.001 || math.Abs(credited[1]-total[1]) > 0.00005*float64(len(ads))+1e-9 {
				t.Errorf("%s: credited %v != total %v", attr, credited, total)
			}
		}
	}
	// With an event metric beside (read from the fact tables, which hold none here), the same credits.
	res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue","page_views"],"time":`+month+
		`,"metadata":{"level":"ad","attribution":{"model":"last_click"}},"order":{"ad_id":"asc"}}`)
	if got := asJSON(res.Data); got != `[{"ad_id":"A1","ad_name":null,"source":"alpha_ads","tx_revenue":50.00,"page_views":0},`+
		`{"ad_id":"A2","ad_name":null,"source":"alpha_ads","tx_revenue":20.00,"page_views":0},`+
		`{"ad_id":"A3","ad_name":null,"source":"alpha_ads","tx_revenue":100.00,"page_views":0}]` {
		t.Errorf("with page_views: %s", got)
	}
	// Ratios over credited counts divide their exact sums: A3's linear third of O1 is $33.333334
	// for 0.333334 orders.
	res = query(t, svc, scope, `{"project_id":"prj_j","fields":["aov"],"time":`+month+
		`,"metadata":{"level":"ad","attribution":{"model":"linear"}},"filters":[{"member":"ad_id","operator":"equals","values":["A3"]}]}`)
	if got := asJSON(res.Data); got != `[{"ad_id":"A3","ad_name":null,"source":"alpha_ads","aov":100.00}]` {
		t.Errorf("aov: %s", got)
	}
	// A 90-day window reaches L3's touch: O3 goes to A2 whatever the model.
	ads, _ := byAd(t, svc, scope, `{"model":"linear","window_days":90}`, month)
	checkCredits(t, "linear 90", ads, map[string][2]float64{"A1": {100.0/3 + 60, 1.8333}, "A2": {100.0/3 + 10 + 30, 1.8333},
		"A3": {100.0 / 3, 0.3333}})
	// A 7-day window: O1 keeps the touch exactly 7 days before it and the one a day before, O5
	// only its 3-day-old touch.
	ads, _ = byAd(t, svc, scope, `{"model":"linear","window_days":7}`, month)
	checkCredits(t, "linear 7", ads, map[string][2]float64{"A1": {50, 1}, "A2": {50 + 20, 1.5}, "A3": {50, 0.5}})
}

// TestAttributionByClickDate: date click puts each credit on its touch's day, so a range that
// holds the touches but not the orders still shows their revenue; an order without a touch is
// in no ad-view row.
func TestAttributionByClickDate(t *testing.T) {
	svc, scope := attributionService(t)
	days := func(attr, start, end string) map[string]float64 {
		res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue"],"time":{"start":"`+start+`","end":"`+end+
			`","granularity":"day"},"metadata":{"attribution":`+attr+`}}`)
		out := map[string]float64{}
		for _, r := range res.Data {
			d, _ := r.Get("date")
			v, _ := r.Get("tx_revenue")
			if f := v.(engine.Money).InexactFloat64(); f != 0 {
				out[d.(string)] = f
			}
		}
		return out
	}
	for _, c := range []struct {
		attr, start, end string
		want             map[string]float64
	}{
		{`{"model":"last_click","date":"click"}`, "2024-03-01", "2024-03-31",
			map[string]float64{"2024-03-14": 100, "2024-03-10": 50, "2024-03-08": 20}},
		{`{"model":"first_click","date":"click"}`, "2024-03-01", "2024-03-31",
			map[string]float64{"2024-03-01": 120, "2024-03-10": 50}},
		{`{"model":"linear","date":"click"}`, "2024-03-01", "2024-03-09",
			map[string]float64{"2024-03-01": 100.0/3 + 10, "2024-03-08": 100.0/3 + 10}},
		{`{"model":"linear","date":"conversion"}`, "2024-03-01", "2024-03-09", map[string]float64{}},
		{`{"model":"position_based","date":"click"}`, "2024-03-14", "2024-03-14", map[string]float64{"2024-03-14": 40}},
	} {
		got := days(c.attr, c.start, c.end)
		if len(got) != len(c.want) {
			t.Errorf("%s %s..%s: %v, want %v", c.attr, c.start, c.end, got, c.want)
			continue
		}
		for d, v := range c.want {
			if math.Abs(got[d]-v) > 0.01 {
				t.Errorf("%s %s: %v, want %v (all %v)", c.attr, d, got[d], v, got)
			}
		}
	}
}

func checkCredits(t *testing.T, name string, got, want map[string][2]float64) {
	t.Helper()
	for ad, v := range got {
		if v == [2]float64{} {
			delete(got, ad)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: ads %v, want %v", name, got, want)
		return
	}
	for ad, w := range want {
		g := got[ad]
		if math.Abs(g[0]-w[0]) > 0.01 || math.Abs(g[1]-w[1]) > 0.0003 { // the answer shows 4 decimals
			t.Errorf("%s: %s %v, want %v", name, ad, g, w)
		}
	}
}

// TestAttributionOnCluster: on the two-shard test cluster, with the credits of the hand journeys
// of projects on both shards, every project's orders are credited as on one server.
func TestAttributionOnCluster(t *testing.T) {
	cl := testenv.ClickHouseCluster(t)
	projects := []string{"prj_a", "prj_b", "prj_c", "prj_d"}
	for _, p := range projects {
		writeCredits(t, cl.Conn, p, "UTC", handJourneys)
	}
	svc := engine.New(cl.Conn, engine.Options{Clock: clock.NewFake(testNow)})
	for _, p := range projects {
		scope := engine.Scope{ProjectID: p, Currency: "USD", TimeZone: "UTC"}
		res := query(t, svc, scope, `{"project_id":"`+p+`","fields":["tx_revenue"],"time":{"start":"2024-03-01","end":"2024-03-31"},`+
			`"metadata":{"level":"ad","attribution":{"model":"last_click"}},"order":{"ad_id":"asc"}}`)
		want := `[{"ad_id":"A1","ad_name":null,"source":"alpha_ads","tx_revenue":50.00},{"ad_id":"A2","ad_name":null,"source":"alpha_ads","tx_revenue":20.00},` +
			`{"ad_id":"A3","ad_name":null,"source":"alpha_ads","tx_revenue":100.00}]`
		if got := asJSON(res.Data); got != want {
			t.Errorf("%s: %s, want %s", p, got, want)
		}
	}
	for i, sh := range cl.Shards {
		var n uint64
		if err := sh.QueryRow(context.Background(), "SELECT count() FROM credits_raw_local").Scan(&n); err != nil || n == 0 {
			t.Errorf("shard %d holds %d credits (%v)", i+1, n, err)
		}
	}
}

// TestAttributionComparesAndCounts: comparisons and total_rows work under a model. First click by
// click date: March 1-7 holds O1's and O5's first touches ($120), March 8-14 O2's touch ($50;
// the unattributed O3 is in no ad-view total).
func TestAttributionComparesAndCounts(t *testing.T) {
	svc, scope := attributionService(t)
	res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue"],"time":{"start":"2024-03-01","end":"2024-03-07",`+
		`"compare":{"start":"2024-03-08","end":"2024-03-14"}},"metadata":{"attribution":{"model":"first_click","date":"click"}}}`)
	if got := asJSON(res.Data); got != `[{"tx_revenue":120.00,"compare":{"tx_revenue":50.00},"change":{"tx_revenue":1.4}}]` {
		t.Errorf("compare: %s", got)
	}
	res = query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue"],"time":{"start":"2024-03-01","end":"2024-03-31"},`+
		`"metadata":{"level":"ad","attribution":{"model":"linear"}},"total":true,"limit":1}`)
	if res.TotalRows == nil || *res.TotalRows != 3 || len(res.Data) != 1 {
		t.Errorf("total_rows %v, %d rows", res.TotalRows, len(res.Data))
	}
}

// TestAttributionConvertsMoney: a credit converts at its own day's rate, the order's by
// conversion date, the touch's by click date; a missing rate makes it null with a warning.
func TestAttributionConvertsMoney(t *testing.T) {
	ch := testenv.ClickHouse(t)
	writeCredits(t, ch.Conn, "prj_fx", "UTC", []journey{
		{kind: "touch", lead: "L9", at: utc(3, 2, 10), ad: "A9"},
		{kind: "order", lead: "L9", order: "O9", at: utc(3, 3, 10), revenue: 500 * dollar, count: 1, total: 1, currency: "BRL"},
	})
	rate := func(d int, r string) enginetest.Rate {
		return enginetest.Rate{RateKey: enginetest.RateKey{Day: utc(3, d, 0), Base: "BRL", Quote: "USD"}, Rate: decimal.RequireFromString(r)}
	}
	if err := enginetest.InsertRates(context.Background(), ch.Conn, []enginetest.Rate{rate(2, "0.25"), rate(3, "0.2")}); err != nil {
		t.Fatal(err)
	}
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	scope := engine.Scope{ProjectID: "prj_fx", Currency: "USD", TimeZone: "UTC"}
	for date, want := range map[string]string{"conversion": `[{"tx_revenue":100.00}]`, "click": `[{"tx_revenue":125.00}]`} {
		res := query(t, svc, scope, `{"project_id":"prj_fx","fields":["tx_revenue"],"time":{"start":"2024-03-01","end":"2024-03-31"},`+
			`"metadata":{"attribution":{"model":"linear","date":"`+date+`"}}}`)
		if got := asJSON(res.Data); got != want {
			t.Errorf("%s: %s, want %s", date, got, want)
		}
	}
	res := query(t, svc, scope, `{"project_id":"prj_fx","fields":["tx_revenue"],"time":{"start":"2024-03-01","end":"2024-03-31"},`+
		`"metadata":{"convert_to_currency":"EUR","attribution":{"model":"linear"}}}`)
	if got := asJSON(res.Data); got != `[{"tx_revenue":null}]` || len(res.Warnings) == 0 {
		t.Errorf("no EUR rate: %s %q", got, res.Warnings)
	}
}

// TestAttributionExplainNamesTheCreditsTable: explain names the model, window, date and the
// credits table that answers: daily for whole days, hourly for hours, raw for sub-hour buckets;
// in the traffic view with no entity level or filter, whole days come from the daily rollup
// without the ad entity.
func TestAttributionExplainNamesTheCreditsTable(t *testing.T) {
	svc, scope := attributionService(t)
	const month, hours = `{"start":"2024-03-01","end":"2024-03-31"}`, `{"start":"2024-03-01","end":"2024-03-31","granularity":"hour"}`
	for _, c := range []struct{ time, meta, touches, table string }{
		{month, "", "ads", "credits_daily"},
		{hours, "", "ads", "credits_hourly"},
		{`{"start":"2024-03-14","end":"2024-03-15","granularity":"15min"}`, "", "ads", "credits_raw"},
		{month, `"dimensions":["utm_source"],`, "all", "credits_traffic_daily"},
		{month, `"dimensions":[],`, "all", "credits_traffic_daily"},
		{hours, `"dimensions":["utm_source"],`, "all", "credits_hourly"},
		{month, `"dimensions":["utm_source"],"level":"campaign",`, "all", "credits_daily"},
	} {
		p, err := svc.Prepare(scope, mustInput(t, `{"project_id":"prj_j","fields":["tx_revenue"],"time":`+c.time+
			`,"metadata":{`+c.meta+`"attribution":{"model":"linear","window_days":7}}}`))
		if err != nil {
			t.Fatal(err)
		}
		ex, err := svc.Explain(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.AttributionUsed{Model: "linear", WindowDays: 7, Date: "conversion", Touches: c.touches, Table: c.table}
		if ex.Attribution != want || !strings.Contains(strings.Join(ex.SQL, "\n"), "FROM "+c.table+" WHERE") {
			t.Errorf("%s %s: %+v, want %+v; %q", c.time, c.meta, ex.Attribution, want, ex.SQL)
		}
	}
}

// TestAttributionHalfHourZone: in a zone 10:30 ahead of UTC (Lord Howe in June), credits by click
// date fall in the local hours of their touches, read from the stored local hours.
func TestAttributionHalfHourZone(t *testing.T) {
	ch := testenv.ClickHouse(t)
	at := func(d, h, m int) time.Time { return time.Date(2024, 6, d, h, m, 0, 0, time.UTC) }
	writeCredits(t, ch.Conn, "prj_lh", "Australia/Lord_Howe", []journey{
		{kind: "touch", lead: "L1", at: at(10, 1, 20), ad: "A1"}, // 11:50 local
		{kind: "touch", lead: "L1", at: at(10, 1, 40), ad: "A2"}, // 12:10 local
		{kind: "order", lead: "L1", order: "O1", at: at(11, 2, 0), revenue: 10 * dollar, count: 1, total: 1},
	})
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	scope := engine.Scope{ProjectID: "prj_lh", Currency: "USD", TimeZone: "Australia/Lord_Howe"}
	res := query(t, svc, scope, `{"project_id":"prj_lh","fields":["tx_revenue"],"time":{"start":"2024-06-10T11:00:00",`+
		`"end":"2024-06-10T14:00:00","granularity":"hour"},"metadata":{"attribution":{"model":"linear","date":"click"}}}`)
	if got := asJSON(res.Data); got != `[{"date":"2024-06-10T11:00:00+10:30","tx_revenue":5.00},`+
		`{"date":"2024-06-10T12:00:00+10:30","tx_revenue":5.00},{"date":"2024-06-10T13:00:00+10:30","tx_revenue":0.00}]` {
		t.Errorf("hours: %s", got)
	}
}
