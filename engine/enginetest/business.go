package enginetest

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/facts"
)

// Business facts as the shared schema (schema/clickhouse/0008_business_facts.sql) describes
// them, made here so that the engine's tests and benchmarks do not depend on the writer
// (facts/): events (page views, leads, checkouts) with their UTM, referrer, landing path and
// device, some without UTM; orders of one to three products, each an 'order' row and one 'item'
// row per product (one with product '' for an order without items) with revenue, net revenue
// and costs split by line value with a largest-remainder rounding; status changes (pending to
// approved, approved to refunded) as the old rows negated and the new ones; orders in the
// project's and in other currencies; commissions in the order's currency or in another one
// (their own rows); customers buying more than once. An order row's tx_units is its approved
// quantity, the sum of its lines'.

// BusinessRow is one row of business_raw.
type BusinessRow struct {
	ProjectID string
	Time      time.Time
	Kind      string // event, order or item
	Source    string
	// CampaignID and AdID are the attribution ('' when none); account, connection and ad set
	// follow from the campaign.
	CampaignID, AdID string
	// Dims are the traffic and order dimensions by name (engine.BusinessDimensions).
	Dims     map[string]string
	Currency string
	// Values are the measures by column (BusinessMeasures).
	Values map[string]int64
}

// BusinessMeasures are the measure columns of business_raw.
var BusinessMeasures = []string{"page_views", "leads", "initiate_checkout", "tx_revenue", "tx_revenue_net", "tx_count",
	"tx_count_total", "tx_count_pending", "tx_count_refunded", "tx_product_costs", "tx_units"}

// BusinessProject is a project of a business dataset.
type BusinessProject struct {
	ID, TimeZone, Currency string
	Loc                    *time.Location
	Start                  time.Time // first local day, as a civil date
	Days                   int
	// Foreign are the other currencies its orders and commissions come in.
	Foreign []string
	// Events and Orders are how many of each GenerateBusiness makes.
	Events, Orders int
	// Contents is how many utm_content values traffic has (default 40).
	Contents int
}

// BusinessDataset is the rows and exchange rates of business projects.
type BusinessDataset struct {
	Projects []BusinessProject
	Rows     []BusinessRow
	Rates    []facts.Rate
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

// GenerateBusiness makes the rows of projects for seed: their events and orders spread over
// their days, and a rate per day from each foreign currency into the project's.
func GenerateBusiness(seed int64, projects []BusinessProject) (BusinessDataset, error) {
	r := rand.New(rand.NewSource(seed))
	var ds BusinessDataset
	for _, pr := range projects {
		g, err := newBusinessGen(r, pr)
		if err != nil {
			return ds, err
		}
		ds.Projects = append(ds.Projects, g.p)
		ds.Rates = append(ds.Rates, g.rates()...)
		for i := 0; i < pr.Events; i++ {
			ds.Rows = append(ds.Rows, g.event())
		}
		times := make([]time.Time, pr.Orders)
		for i := range times {
			times[i] = g.at()
		}
		sort.Slice(times, func(i, j int) bool { return times[i].Before(times[j]) })
		for _, at := range times {
			ds.Rows = append(ds.Rows, g.order(at)...)
		}
	}
	return ds, nil
}

// businessGen makes one project's rows.
type businessGen struct {
	r      *rand.Rand
	p      BusinessProject
	first  time.Time
	span   time.Duration
	bought map[string]bool
}

func newBusinessGen(r *rand.Rand, p BusinessProject) (*businessGen, error) {
	loc, err := time.LoadLocation(p.TimeZone)
	if err != nil {
		return nil, err
	}
	p.Loc = loc
	if p.Contents == 0 {
		p.Contents = 40
	}
	first := engine.DayStart(p.Start, loc)
	return &businessGen{r: r, p: p, first: first, span: engine.DayStart(p.Start.AddDate(0, 0, p.Days), loc).Sub(first),
		bought: map[string]bool{}}, nil
}

func (g *businessGen) pick(xs []string) string { return xs[g.r.Intn(len(xs))] }

func (g *businessGen) at() time.Time { return g.first.Add(time.Duration(g.r.Int63n(int64(g.span)))) }

func (g *businessGen) rates() []facts.Rate {
	var out []facts.Rate
	for d := -1; d <= g.p.Days; d++ {
		for _, c := range g.p.Foreign {
			rate := decimal.New(int64(100+7*d+len(c)), -2)
			if c == "BRL" {
				rate = decimal.New(int64(2000+3*d), -4)
			}
			out = append(out, facts.Rate{Day: g.p.Start.AddDate(0, 0, d), Base: c, Quote: g.p.Currency, Rate: rate})
		}
	}
	return out
}

// traffic is a visit's attribution and traffic dimensions.
func (g *businessGen) traffic(at time.Time, kind string) BusinessRow {
	dims := map[string]string{"utm_source": g.pick(bizSources), "utm_medium": g.pick(bizMediums),
		"utm_campaign": g.pick(bizCampaigns), "utm_content": fmt.Sprintf("ad_%d", g.r.Intn(g.p.Contents)), "utm_term": g.pick(bizTerms),
		"referrer_host": g.pick(bizReferrers), "landing_path": g.pick(bizLandings), "device": g.pick(bizDevices)}
	if g.r.Intn(4) == 0 {
		dims["utm_content"] = ""
	}
	row := BusinessRow{ProjectID: g.p.ID, Time: at, Kind: kind, Dims: dims, Currency: g.p.Currency, Values: map[string]int64{}}
	if dims["utm_source"] == "google" || dims["utm_source"] == "facebook" {
		row.Source, row.CampaignID = "alpha_ads", fmt.Sprintf("cmp%d", 1+g.r.Intn(3))
		if g.r.Intn(3) > 0 {
			row.AdID = fmt.Sprintf("ad%d", g.r.Intn(5))
		}
	}
	return row
}

// event is a page view, lead or checkout at a random time.
func (g *businessGen) event() BusinessRow {
	row := g.traffic(g.at(), "event")
	row.Values[[]string{"page_views", "page_views", "leads", "initiate_checkout"}[g.r.Intn(4)]] = 1
	return row
}

// order is the rows of an order at at: its first status and, for some, a later change.
func (g *businessGen) order(at time.Time) []BusinessRow {
	cust := fmt.Sprintf("cust%d", g.r.Intn(40))
	if g.r.Intn(10) == 0 {
		cust = ""
	}
	o := businessOrder{base: g.traffic(at, "order")}
	o.base.Dims["payment_method"] = g.pick(bizPayments)
	if g.r.Intn(4) == 0 {
		o.base.Currency = g.pick(g.p.Foreign)
	}
	status := []string{"approved", "approved", "pending", "refunded", "failed"}[g.r.Intn(5)]
	if status == "approved" && cust != "" {
		o.base.Dims["customer_type"] = "new"
		if g.bought[cust] {
			o.base.Dims["customer_type"] = "returning"
		}
		g.bought[cust] = true
	}
	if g.r.Intn(8) > 0 {
		for _, k := range g.r.Perm(len(bizProducts))[:1+g.r.Intn(3)] {
			q := int64(1 + g.r.Intn(3))
			o.products = append(o.products, k)
			o.qty = append(o.qty, q)
			o.lines = append(o.lines, q*int64(999+g.r.Intn(20000)))
			o.value += o.lines[len(o.lines)-1]
		}
	} else {
		o.value = int64(1000 + g.r.Intn(50000)) // an order without items
	}
	o.cost = o.value * int64(20+g.r.Intn(30)) / 100
	switch g.r.Intn(3) {
	case 0:
		o.commission, o.commissionCurrency = o.value*int64(85+g.r.Intn(10))/100, o.base.Currency
	case 1:
		o.commission, o.commissionCurrency = 1+g.r.Int63n(o.value), g.pick(g.p.Foreign)
	}
	rows := o.rows(status)
	if next := map[string]string{"pending": "approved", "approved": "refunded"}[status]; next != "" && g.r.Intn(2) == 0 {
		// A later webhook changes the status (without UTM: the attribution stays).
		rows = append(rows, negated(o.rows(status))...)
		rows = append(rows, o.rows(next)...)
	}
	return rows
}

// businessOrder is an order before its status decides its measures. Amounts are in cents.
type businessOrder struct {
	base                    BusinessRow
	lines, qty              []int64 // line values (quantity × unit price) and quantities
	products                []int
	value, cost, commission int64 // commission 0 when none
	commissionCurrency      string
}

// rows are the order's rows in status: its order row and item rows, and the commission's own
// rows when it is in another currency.
func (o businessOrder) rows(status string) []BusinessRow {
	approved := status == "approved"
	counts := map[string]int64{}
	if status != "failed" {
		counts["tx_count_total"] = 1
	}
	switch status {
	case "pending":
		counts["tx_count_pending"] = 1
	case "refunded":
		counts["tx_count_refunded"] = 1
	case "approved":
		counts["tx_count"] = 1
	}
	orderVals := copyValues(counts)
	var revenue, net, foreignNet, costs int64
	if approved {
		revenue, costs, net = o.value*10000, o.cost*10000, o.value*10000
		if o.commissionCurrency == o.base.Currency {
			net = o.commission * 10000
		} else if o.commissionCurrency != "" {
			net, foreignNet = 0, o.commission*10000
		}
		orderVals["tx_revenue"], orderVals["tx_revenue_net"], orderVals["tx_product_costs"] = revenue, net, costs
		for _, q := range o.qty {
			orderVals["tx_units"] += q
		}
	}
	row := func(kind string, product int, currency string, vals map[string]int64) BusinessRow {
		x := o.base
		x.Kind, x.Currency, x.Values, x.Dims = kind, currency, vals, map[string]string{}
		for k, v := range o.base.Dims {
			x.Dims[k] = v
		}
		if product >= 0 {
			x.Dims["product_id"], x.Dims["product_name"] = bizProducts[product].id, bizProducts[product].name
		}
		return x
	}
	out := []BusinessRow{row("order", -1, o.base.Currency, orderVals)}
	if foreignNet != 0 {
		out = append(out, row("order", -1, o.commissionCurrency, map[string]int64{"tx_revenue_net": foreignNet}))
	}
	weights := o.lines
	if len(weights) == 0 {
		weights = []int64{1}
	}
	revenues, nets, costSplit, foreign := LargestRemainder(revenue, weights), LargestRemainder(net, weights),
		LargestRemainder(costs, weights), LargestRemainder(foreignNet, weights)
	for i := range weights {
		vals := copyValues(counts)
		if approved {
			vals["tx_revenue"], vals["tx_revenue_net"], vals["tx_product_costs"] = revenues[i], nets[i], costSplit[i]
			if len(o.qty) > 0 {
				vals["tx_units"] = o.qty[i]
			}
		}
		product := -1
		if len(o.products) > 0 {
			product = o.products[i]
		}
		out = append(out, row("item", product, o.base.Currency, vals))
		if foreign[i] != 0 {
			out = append(out, row("item", product, o.commissionCurrency, map[string]int64{"tx_revenue_net": foreign[i]}))
		}
	}
	return out
}

// LargestRemainder splits total by weights so that the parts sum to it exactly: each part is
// its share rounded down, and the units left go to the largest remainders (the first on ties).
func LargestRemainder(total int64, weights []int64) []int64 {
	var sum int64
	for _, w := range weights {
		sum += w
	}
	parts, rems := make([]int64, len(weights)), make([]int64, len(weights))
	left := total
	for i, w := range weights {
		parts[i], rems[i] = total*w/sum, total*w%sum
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

func negated(rows []BusinessRow) []BusinessRow {
	out := make([]BusinessRow, len(rows))
	for i, r := range rows {
		out[i] = r
		out[i].Values = map[string]int64{}
		for k, v := range r.Values {
			out[i].Values[k] = -v
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

// Loc is the zone of project id.
func (ds BusinessDataset) Loc(id string) *time.Location {
	for _, p := range ds.Projects {
		if p.ID == id {
			return p.Loc
		}
	}
	panic("enginetest: no business project " + id)
}

// Write inserts the rows into business_raw (its views fill the rollups), the ad facts that
// ingestion writes beside the attributed ones (AdFacts), and the rates.
func (ds BusinessDataset) Write(ctx context.Context, conn driver.Conn) error {
	if err := InsertBusiness(ctx, conn, ds.Rows, ds.Loc); err != nil {
		return err
	}
	for _, p := range ds.Projects {
		if fs := ds.AdFacts(p.ID); len(fs) > 0 {
			if err := facts.InsertFacts(ctx, conn, p.Loc, fs); err != nil {
				return err
			}
		}
	}
	return facts.InsertRates(ctx, conn, ds.Rates, 1)
}

// AdFacts are the ad facts (facts_raw) of project's attributed events and orders, as ingestion
// writes them beside their business rows: same time, ad keys, currency and business measures,
// none for order lines or for the net revenue (the ad facts hold neither).
func (ds BusinessDataset) AdFacts(project string) []facts.Fact {
	var out []facts.Fact
	for _, r := range ds.Rows {
		if r.ProjectID != project || r.Kind == "item" || r.Source == "" {
			continue
		}
		f := facts.Fact{ProjectID: r.ProjectID, Time: r.Time, AdEntity: facts.AdEntity{Source: r.Source, CampaignID: r.CampaignID, AdID: r.AdID}, Currency: r.Currency}
		f.AccountID, f.ConnectionID, f.AdsetID = adKeys(r)
		for m, spec := range facts.Specs {
			f.Values[m] = r.Values[spec.Column]
		}
		if f.Values != (facts.Values{}) {
			out = append(out, f)
		}
	}
	return out
}

// adKeys are the account, connection and ad set of r's attribution, which follow from its
// campaign (empty when none).
func adKeys(r BusinessRow) (account, connection, adset string) {
	if r.CampaignID == "" {
		return "", "", ""
	}
	return "acc1", "con_alpha", r.CampaignID + "_set"
}

// InsertBusiness writes rows into business_raw, their stored times in their project's zone.
func InsertBusiness(ctx context.Context, conn driver.Conn, rows []BusinessRow, loc func(project string) *time.Location) error {
	cols := "project_id, ts, hour, day, kind, source, connection_id, account_id, campaign_id, adset_id, ad_id"
	for _, d := range engine.BusinessDimensions {
		cols += ", " + d
	}
	cols += ", currency"
	for _, m := range BusinessMeasures {
		cols += ", " + m
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO business_raw ("+cols+", outbox_id, pair_rollups)")
	if err != nil {
		return err
	}
	defer batch.Close() //nolint:errcheck // after Send it is a no-op
	for i, r := range rows {
		minute, hour, day := facts.Times(r.Time, loc(r.ProjectID))
		account, connection, adset := adKeys(r)
		vals := []any{r.ProjectID, minute, hour, day, r.Kind, r.Source, connection, account, r.CampaignID, adset, r.AdID}
		for _, d := range engine.BusinessDimensions {
			vals = append(vals, r.Dims[d])
		}
		vals = append(vals, r.Currency)
		for _, m := range BusinessMeasures {
			vals = append(vals, r.Values[m])
		}
		// pair_rollups 1, as facts.InsertBizFacts writes: the pair rollups' views count the row.
		if err := batch.Append(append(vals, uint64(i+1), uint8(1))...); err != nil {
			return err
		}
	}
	return batch.Send()
}

// StreamBusiness writes about n more business rows for project p (events and orders, one order
// for every four events), in batches of BatchSize, without holding them all: the benchmark's
// volume.
func StreamBusiness(ctx context.Context, conn driver.Conn, p BusinessProject, seed int64, n int) error {
	g, err := newBusinessGen(rand.New(rand.NewSource(seed)), p)
	if err != nil {
		return err
	}
	loc := func(string) *time.Location { return g.p.Loc }
	if err := facts.InsertRates(ctx, conn, g.rates(), 1); err != nil {
		return err
	}
	for written := 0; written < n; {
		var batch []BusinessRow
		for len(batch) < BatchSize && written+len(batch) < n {
			if g.r.Intn(5) == 0 {
				batch = append(batch, g.order(g.at())...)
			} else {
				batch = append(batch, g.event())
			}
		}
		if err := InsertBusiness(ctx, conn, batch, loc); err != nil {
			return err
		}
		written += len(batch)
	}
	return nil
}
