package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/facts"
)

// Business facts as the shared schema (0008) describes them, made here so that the engine's
// tests do not depend on the writer: events (page views, leads, checkouts) with their UTM,
// referrer, landing path and device, some without UTM; orders of one to three products, each
// an 'order' row and one 'item' row per product with revenue, net revenue and costs split by line
// value with a largest-remainder rounding; status changes (pending to approved, approved to
// refunded) as the old rows negated and the new ones; orders in the project's and in other
// currencies, commissions in the order's currency or in another one (their own rows); customers
// buying more than once.

// bizRow is one row of business_raw.
type bizRow struct {
	project  string
	at       time.Time
	kind     string
	source   string
	campaign string
	ad       string
	// dims are the traffic and order dimensions, by name (engine.BusinessDimensions).
	dims     map[string]string
	currency string
	// values by measure column.
	values map[string]int64
}

// bizMeasures are the measure columns of business_raw.
var bizMeasures = []string{"page_views", "leads", "initiate_checkout", "tx_revenue", "tx_revenue_net", "tx_count",
	"tx_count_total", "tx_count_pending", "tx_count_refunded", "tx_product_costs", "tx_units"}

// bizProject is a project of the business dataset.
type bizProject struct {
	id, zone, currency string
	loc                *time.Location
	start              time.Time // first local day, as a civil date
	days               int
	// foreign are the other currencies its orders and commissions come in.
	foreign []string
}

func (p bizProject) scope() engine.Scope {
	return engine.Scope{ProjectID: p.id, Currency: p.currency, TimeZone: p.zone, SubHour: true}
}

// bizDataset is the rows and exchange rates of the business tests.
type bizDataset struct {
	projects []bizProject
	rows     []bizRow
	rates    []facts.Rate
}

var bizProjects = []bizProject{
	{id: "prj_biz_sp", zone: "America/Sao_Paulo", currency: "BRL", start: day(2024, 3, 1), days: 12, foreign: []string{"USD", "EUR"}},
	{id: "prj_biz_ny", zone: "America/New_York", currency: "USD", start: day(2024, 3, 5), days: 10, foreign: []string{"BRL"}},
}

var (
	bizSources   = []string{"google", "facebook", "email", "whatsapp", "organic", ""}
	bizMediums   = []string{"cpc", "social", "email", ""}
	bizCampaigns = []string{"black_friday|cmp1", "launch|cmp2", "retarget", ""}
	bizTerms     = []string{"tenis", "Tênis Azul", ""}
	bizReferrers = []string{"www.google.com", "l.facebook.com", "t.co", ""}
	bizLandings  = []string{"/", "/produto/tenis", "/checkout", ""}
	bizDevices   = []string{"desktop", "mobile", "tablet", "bot", "other"}
	bizPayments  = []string{"pix", "boleto", "credit_card", "debit_card", "paypal", "other", ""}
	bizProducts  = []struct{ id, name string }{{"p1", "Tênis"}, {"p2", "Meia"}, {"p3", "Boné"}, {"p4", "Camiseta"}, {"p5", ""}}
)

// genBusiness makes the dataset for seed: events and orders spread over each project's days.
func genBusiness(seed int64) bizDataset {
	r := rand.New(rand.NewSource(seed))
	var ds bizDataset
	pick := func(xs []string) string { return xs[r.Intn(len(xs))] }
	for _, pr := range bizProjects {
		pr.loc, _ = time.LoadLocation(pr.zone)
		ds.projects = append(ds.projects, pr)
		first := refDayStart(pr.start, pr.loc)
		span := refDayStart(pr.start.AddDate(0, 0, pr.days), pr.loc).Sub(first)
		for d := -1; d <= pr.days; d++ {
			for _, c := range pr.foreign {
				rate := decimal.New(int64(100+7*d+len(c)), -2)
				if c == "BRL" {
					rate = decimal.New(int64(2000+3*d), -4)
				}
				ds.rates = append(ds.rates, facts.Rate{Day: pr.start.AddDate(0, 0, d), Base: c, Quote: pr.currency, Rate: rate})
			}
		}
		traffic := func() (string, string, map[string]string) {
			dims := map[string]string{"utm_source": pick(bizSources), "utm_medium": pick(bizMediums),
				"utm_campaign": pick(bizCampaigns), "utm_content": fmt.Sprintf("ad_%d", r.Intn(40)), "utm_term": pick(bizTerms),
				"referrer_host": pick(bizReferrers), "landing_path": pick(bizLandings), "device": pick(bizDevices)}
			if r.Intn(4) == 0 {
				dims["utm_content"] = ""
			}
			campaign, ad := "", ""
			if dims["utm_source"] == "google" || dims["utm_source"] == "facebook" {
				campaign = fmt.Sprintf("cmp%d", 1+r.Intn(3))
				if r.Intn(3) > 0 {
					ad = fmt.Sprintf("ad%d", r.Intn(5))
				}
			}
			return campaign, ad, dims
		}
		at := func() time.Time { return first.Add(time.Duration(r.Int63n(int64(span)))) }
		for i := 0; i < 500; i++ {
			campaign, ad, dims := traffic()
			row := bizRow{project: pr.id, at: at(), kind: "event", campaign: campaign, ad: ad, dims: dims,
				currency: pr.currency, values: map[string]int64{}}
			row.values[[]string{"page_views", "page_views", "leads", "initiate_checkout"}[r.Intn(4)]] = 1
			ds.rows = append(ds.rows, row)
		}
		bought := map[string]bool{}
		type order struct {
			at   time.Time
			cust string
		}
		var orders []order
		for i := 0; i < 160; i++ {
			cust := fmt.Sprintf("cust%d", r.Intn(40))
			if r.Intn(10) == 0 {
				cust = ""
			}
			orders = append(orders, order{at(), cust})
		}
		sort.Slice(orders, func(i, j int) bool { return orders[i].at.Before(orders[j].at) })
		for _, o := range orders {
			campaign, ad, dims := traffic()
			dims["payment_method"] = pick(bizPayments)
			currency := pr.currency
			if r.Intn(4) == 0 {
				currency = pick(pr.foreign)
			}
			status := []string{"approved", "approved", "pending", "refunded", "failed"}[r.Intn(5)]
			if status == "approved" && o.cust != "" {
				dims["customer_type"] = "new"
				if bought[o.cust] {
					dims["customer_type"] = "returning"
				}
				bought[o.cust] = true
			}
			ord := genOrder(r, pr, o.at, campaign, ad, dims, currency)
			ds.rows = append(ds.rows, ord.rows(status)...)
			if next := map[string]string{"pending": "approved", "approved": "refunded"}[status]; next != "" && r.Intn(2) == 0 {
				// A later webhook changes the status (without UTM: the attribution stays).
				ds.rows = append(ds.rows, negated(ord.rows(status))...)
				ds.rows = append(ds.rows, ord.rows(next)...)
			}
		}
	}
	return ds
}

// bizOrder is an order before its status decides its measures.
type bizOrder struct {
	base              bizRow
	lines             []int64 // line values in cents (quantity × unit price)
	qty               []int64
	products          []int
	value, cost       int64 // cents
	commission        int64 // cents, 0 when none
	commissionCurrncy string
}

func genOrder(r *rand.Rand, pr bizProject, at time.Time, campaign, ad string, dims map[string]string, currency string) bizOrder {
	o := bizOrder{base: bizRow{project: pr.id, at: at, campaign: campaign, ad: ad, dims: dims, currency: currency}}
	if campaign != "" {
		o.base.source = "alpha_ads"
	}
	if r.Intn(8) > 0 {
		for _, k := range r.Perm(len(bizProducts))[:1+r.Intn(3)] {
			q := int64(1 + r.Intn(3))
			o.products = append(o.products, k)
			o.qty = append(o.qty, q)
			o.lines = append(o.lines, q*int64(999+r.Intn(20000)))
			o.value += o.lines[len(o.lines)-1]
		}
	} else {
		o.value = int64(1000 + r.Intn(50000)) // an order without items
	}
	o.cost = o.value * int64(20+r.Intn(30)) / 100
	switch r.Intn(3) {
	case 0:
		o.commission, o.commissionCurrncy = o.value*int64(85+r.Intn(10))/100, currency
	case 1:
		o.commission, o.commissionCurrncy = 1+r.Int63n(o.value), pr.foreign[r.Intn(len(pr.foreign))]
	}
	return o
}

// rows are the order's rows in status: its order row and item rows, and the commission's own
// rows when it is in another currency.
func (o bizOrder) rows(status string) []bizRow {
	approved := status == "approved"
	orderVals := map[string]int64{}
	if status != "failed" {
		orderVals["tx_count_total"] = 1
	}
	switch status {
	case "pending":
		orderVals["tx_count_pending"] = 1
	case "refunded":
		orderVals["tx_count_refunded"] = 1
	}
	counts := copyValues(orderVals)
	net, foreignNet := int64(0), int64(0)
	if approved {
		orderVals["tx_count"] = 1
		orderVals["tx_revenue"] = o.value * 10000
		orderVals["tx_product_costs"] = o.cost * 10000
		net = o.value * 10000
		if o.commissionCurrncy == o.base.currency {
			net = o.commission * 10000
		} else if o.commissionCurrncy != "" {
			net, foreignNet = 0, o.commission*10000
		}
		orderVals["tx_revenue_net"] = net
		for _, q := range o.qty {
			orderVals["tx_units"] += q
		}
	}
	row := func(kind string, product int, currency string, vals map[string]int64) bizRow {
		x := o.base
		x.kind, x.currency, x.values = kind, currency, vals
		x.dims = copyDims(o.base.dims)
		if product >= 0 {
			x.dims["product_id"], x.dims["product_name"] = bizProducts[product].id, bizProducts[product].name
		}
		return x
	}
	out := []bizRow{row("order", -1, o.base.currency, orderVals)}
	if foreignNet != 0 {
		out = append(out, row("order", -1, o.commissionCurrncy, map[string]int64{"tx_revenue_net": foreignNet}))
	}
	weights := o.lines
	if len(weights) == 0 {
		weights = []int64{1}
	}
	revenue := largestRemainder(orderVals["tx_revenue"], weights)
	netSplit := largestRemainder(net, weights)
	costs := largestRemainder(orderVals["tx_product_costs"], weights)
	foreign := largestRemainder(foreignNet, weights)
	for i := range weights {
		vals := copyValues(counts)
		if approved {
			vals["tx_count"] = 1
			vals["tx_revenue"], vals["tx_revenue_net"], vals["tx_product_costs"] = revenue[i], netSplit[i], costs[i]
			if len(o.qty) > 0 {
				vals["tx_units"] = o.qty[i]
			}
		}
		product := -1
		if len(o.products) > 0 {
			product = o.products[i]
		}
		out = append(out, row("item", product, o.base.currency, vals))
		if foreign[i] != 0 {
			out = append(out, row("item", product, o.commissionCurrncy, map[string]int64{"tx_revenue_net": foreign[i]}))
		}
	}
	return out
}

// largestRemainder splits total by weights so that the parts sum to it exactly: each part is
// its share rounded down, and the units left go to the largest remainders (the first on ties).
func largestRemainder(total int64, weights []int64) []int64 {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	parts := make([]int64, len(weights))
	rems := make([]int64, len(weights))
	left := total
	for i, w := range weights {
		parts[i] = total * w / sum
		rems[i] = total * w % sum
		left -= parts[i]
	}
	order := make([]int, len(weights))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rems[order[a]] > rems[order[b]] })
	for k := 0; left > 0; k++ {
		parts[order[k%len(order)]]++
		left--
	}
	return parts
}

func negated(rows []bizRow) []bizRow {
	out := make([]bizRow, len(rows))
	for i, r := range rows {
		out[i] = r
		out[i].values = map[string]int64{}
		for k, v := range r.values {
			out[i].values[k] = -v
		}
	}
	return out
}

func copyValues(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func copyDims(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// loc is the project's zone.
func (ds bizDataset) loc(project string) *time.Location {
	for _, p := range ds.projects {
		if p.id == project {
			return p.loc
		}
	}
	panic("no project " + project)
}

// write inserts the rows into business_raw (the views fill the rollups) and the rates.
func (ds bizDataset) write(ctx context.Context, conn driver.Conn) error {
	if err := insertBusiness(ctx, conn, ds.rows, ds.loc); err != nil {
		return err
	}
	return facts.InsertRates(ctx, conn, ds.rates, 1)
}

// insertBusiness writes rows into business_raw with their stored times in their project's zone.
func insertBusiness(ctx context.Context, conn driver.Conn, rows []bizRow, loc func(string) *time.Location) error {
	cols := "project_id, ts, hour, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id"
	for _, d := range engine.BusinessDimensions {
		cols += ", " + d
	}
	cols += ", currency"
	for _, m := range bizMeasures {
		cols += ", " + m
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO business_raw ("+cols+", outbox_id)")
	if err != nil {
		return err
	}
	defer batch.Close() //nolint:errcheck // after Send it is a no-op
	for i, r := range rows {
		minute, hour, d := facts.Times(r.at, loc(r.project))
		account, conn, adset := "", "", ""
		if r.campaign != "" {
			account, conn, adset = "acc1", "con_alpha", r.campaign+"_set"
		}
		vals := []any{r.project, minute, hour, d, r.kind, r.source, conn, account, r.campaign, adset, r.ad}
		for _, dim := range engine.BusinessDimensions {
			vals = append(vals, r.dims[dim])
		}
		vals = append(vals, r.currency)
		for _, m := range bizMeasures {
			vals = append(vals, r.values[m])
		}
		if err := batch.Append(append(vals, uint64(i+1))...); err != nil {
			return err
		}
	}
	return batch.Send()
}

// seededBusiness writes the business dataset into a fresh database.
func seededBusiness(t *testing.T, conn driver.Conn) bizDataset {
	t.Helper()
	ds := genBusiness(11)
	if err := ds.write(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	return ds
}
