package engine_test

import (
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/facts"
)

// refQuery is a query as the reference understands it: the generator of random queries knows
// the instants it meant, so the reference does not parse the query's strings.
type refQuery struct {
	in         engine.QueryInput
	scope      engine.Scope
	loc        *time.Location
	start, end time.Time // [start, end)
	gran       string    // effective granularity ("" for totals)
	target     string
	// Set by resolve: the granularity asked (after the tier's limit), the table read (raw, hour
	// or day) and the local days answered whole from the daily table.
	asked string
	table string
	spans map[time.Time]bool
}

// refRow is one expected row.
type refRow struct {
	bucket   time.Time
	source   string
	id, name string
	mark     string          // the row's granularity when coarser than asked
	unknown  map[string]bool // money measures with an amount whose rate is missing
	counts   map[string]int64
	money    map[string]decimal.Decimal // exact micros of the target currency
	values   map[string]any             // by field: int64, string (money, 2 decimals), *float64
	sortVals map[string]*float64        // by metric: the value orders and filters use
}

// reference answers q over the dataset in plain Go.
func reference(ds *enginetest.Dataset, q refQuery) (rows []refRow, hasMore bool, missing map[string]bool) {
	names := entityNames(ds, q.scope.ProjectID)
	rates := map[string]decimal.Decimal{}
	for _, r := range ds.Rates {
		rates[r.Day.Format("2006-01-02")+r.Base+r.Quote] = r.Rate
	}
	level := ""
	if q.in.Metadata != nil {
		level = q.in.Metadata.Level
	}
	groups := map[string]*refRow{}
	var order []string
	missing = map[string]bool{}
	for _, f := range refFacts(ds, q.loc, q.scope.ProjectID) {
		ok, bucket, mark := place(f, q)
		if !ok || !inScope(f.Fact, q, names) {
			continue
		}
		key := refRow{bucket: bucket, mark: mark}
		if level != "" {
			key.source, key.id = f.Source, levelID(f.Fact, level)
			key.name = names[level+"|"+key.id]
		}
		k := key.bucket.String() + "|" + key.source + "|" + key.id
		g := groups[k]
		if g == nil {
			key.counts, key.money = map[string]int64{}, map[string]decimal.Decimal{}
			g = &key
			groups[k] = g
			order = append(order, k)
		}
		addFact(g, f.Fact, q, f.day, rates, missing)
	}
	if q.gran != "" && level == "" { // every bucket of the range
		for _, b := range allBuckets(q) {
			k := b.bucket.String() + "||"
			if groups[k] == nil {
				groups[k] = &refRow{bucket: b.bucket, mark: b.mark, counts: map[string]int64{}, money: map[string]decimal.Decimal{}}
				order = append(order, k)
			}
		}
	}
	if q.gran == "" && level == "" && len(groups) == 0 {
		groups["totals"] = &refRow{counts: map[string]int64{}, money: map[string]decimal.Decimal{}}
		order = append(order, "totals")
	}
	for _, k := range order {
		r := groups[k]
		if level != "" && !r.anyData(q.in) {
			continue
		}
		evaluate(r, q, level)
		if metricsMatch(r, q.in.Filters) {
			rows = append(rows, *r)
		}
	}
	sortRows(rows, q, level)
	offset, limit := 0, engine.DefaultLimit
	if q.in.Offset != nil {
		offset = *q.in.Offset
	}
	if q.in.Limit != nil {
		limit = *q.in.Limit
	}
	if offset >= len(rows) {
		return nil, false, missing
	}
	rows = rows[offset:]
	hasMore = len(rows) > limit
	if hasMore {
		rows = rows[:limit]
	}
	if offset == 0 {
		addUp(rows, q.in.Fields)
	}
	return rows, hasMore, missing
}

// addUp rounds the money that adds up over a first page cumulatively: each row shows the
// rounded running total up to it less the rounded running total before it, so that the rows sum
// to the rounded sum of their exact amounts.
func addUp(rows []refRow, fields []string) {
	exactOf := map[string]func(r refRow) decimal.Decimal{
		"spend":            func(r refRow) decimal.Decimal { return r.money["spend"] },
		"tx_revenue":       func(r refRow) decimal.Decimal { return r.money["tx_revenue"] },
		"tx_product_costs": func(r refRow) decimal.Decimal { return r.money["tx_product_costs"] },
		"profit": func(r refRow) decimal.Decimal {
			return r.money["tx_revenue"].Sub(r.money["spend"]).Sub(r.money["tx_product_costs"])
		},
	}
	for _, f := range fields {
		exact := exactOf[f]
		if exact == nil {
			continue
		}
		null := false
		for _, r := range rows {
			_, ok := r.values[f].(string)
			null = null || !ok
		}
		if null {
			continue
		}
		running, shown := decimal.Zero, decimal.Zero
		for _, r := range rows {
			running = running.Add(exact(r).Shift(-6))
			r.values[f] = running.Round(2).Sub(shown).StringFixed(2)
			shown = running.Round(2)
		}
	}
}

// entityNames are the project's entities' latest names, by level|id.
func entityNames(ds *enginetest.Dataset, projectID string) map[string]string {
	names := map[string]string{}
	versions := map[string]uint64{}
	for _, e := range ds.Entities {
		if e.ProjectID != projectID {
			continue
		}
		k := e.Level + "|" + e.ID
		if e.Version >= versions[k] {
			versions[k], names[k] = e.Version, e.Name
		}
	}
	return names
}

// inScope reports whether f passes q's source, connection and dimension filters.
func inScope(f facts.Fact, q refQuery, names map[string]string) bool {
	if q.in.Source != "" && f.Source != q.in.Source {
		return false
	}
	if len(q.in.ConnectionIDs) > 0 && !in(f.ConnectionID, q.in.ConnectionIDs) {
		return false
	}
	return dimsMatch(f, q.in.Filters, names)
}

// measuresOf are the measures each metric is computed from (see evaluate's formulas).
var measuresOf = map[string][]string{"ctr": {"clicks", "impressions"}, "cpc": {"spend", "clicks"},
	"cpm": {"spend", "impressions"}, "frequency": {"alpha_impressions", "reach"}, "hook_rate": {"video_views_3s", "impressions"},
	"hold_rate": {"video_views_p75", "impressions"}, "play_rate": {"video_plays", "impressions"},
	"cta_rate": {"clicks", "video_views_p75"}, "roas": {"tx_revenue", "spend"}, "roi": {"tx_revenue", "spend"},
	"profit": {"tx_revenue", "spend", "tx_product_costs"}, "aov": {"tx_revenue", "tx_count"}, "cpa": {"spend", "tx_count"},
	"cpl": {"spend", "leads"}}

// anyData reports whether a measure the query uses (its fields' and metric filters') does not
// sum to 0 in the row: a level row without it is left out.
func (r *refRow) anyData(in engine.QueryInput) bool {
	var members []string
	members = append(members, in.Fields...)
	for _, f := range in.Filters {
		members = append(members, f.Member)
	}
	for _, m := range members {
		ms, ok := measuresOf[m]
		if !ok {
			ms = []string{m}
		}
		for _, x := range ms {
			if r.counts[x] != 0 || r.counts["stored_"+x] != 0 {
				return true
			}
		}
	}
	return false
}

func in(s string, list []string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func levelID(f facts.Fact, level string) string {
	switch level {
	case "account":
		return f.AccountID
	case "campaign":
		return f.CampaignID
	case "adset":
		return f.AdsetID
	}
	return f.AdID
}

func dimValue(f facts.Fact, member string, names map[string]string) (string, bool) {
	switch member {
	case "source":
		return f.Source, true
	case "connection_id":
		return f.ConnectionID, true
	}
	for _, l := range engine.Levels {
		switch member {
		case l + "_id":
			return levelID(f, l), true
		case l + "_name":
			return names[l+"|"+levelID(f, l)], true
		}
	}
	return "", false
}

func dimsMatch(f facts.Fact, filters []engine.Filter, names map[string]string) bool {
	for _, flt := range filters {
		v, ok := dimValue(f, flt.Member, names)
		if !ok {
			continue
		}
		lv := strings.ToLower(v)
		any := false
		for _, x := range flt.Values {
			lx := strings.ToLower(x)
			switch flt.Operator {
			case "equals", "notEquals":
				any = any || v == x
			case "contains", "notContains":
				any = any || strings.Contains(lv, lx)
			case "startsWith":
				any = any || strings.HasPrefix(lv, lx)
			case "endsWith":
				any = any || strings.HasSuffix(lv, lx)
			}
		}
		switch flt.Operator {
		case "set":
			any = v != ""
		case "notSet":
			any = v == ""
		}
		if strings.HasPrefix(flt.Operator, "not") && flt.Operator != "notSet" {
			any = !any
		}
		if !any {
			return false
		}
	}
	return true
}

// bucketOf is the start of ts's bucket in loc: a local date (midnight UTC) for day and coarser,
// an instant for hour and finer.
func bucketOf(ts time.Time, gran string, loc *time.Location) time.Time {
	l := ts.In(loc)
	day := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	minutesBack := func(n int) time.Time {
		return ts.Add(-time.Duration(l.Minute()%n)*time.Minute - time.Duration(l.Second())*time.Second)
	}
	switch gran {
	case "day":
		return day
	case "week":
		return day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	case "month":
		return time.Date(day.Year(), day.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		return time.Date(day.Year(), (day.Month()-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(day.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	case "hour":
		return minutesBack(60)
	case "5min":
		return minutesBack(5)
	case "10min":
		return minutesBack(10)
	case "15min":
		return minutesBack(15)
	}
	return minutesBack(30)
}

type refBucket struct {
	bucket time.Time
	mark   string
}

func allBuckets(q refQuery) []refBucket {
	seen := map[time.Time]bool{}
	var out []refBucket
	for t := q.start.Truncate(5 * time.Minute); t.Before(q.end); t = t.Add(5 * time.Minute) {
		b, mark := seriesBucket(t, q)
		if !seen[b] {
			seen[b] = true
			out = append(out, refBucket{b, mark})
		}
	}
	return out
}

var moneyMeasures = []string{"spend", "tx_revenue", "tx_product_costs"}

func addFact(g *refRow, f facts.Fact, q refQuery, localDay time.Time, rates map[string]decimal.Decimal, missing map[string]bool) {
	day := localDay.Format("2006-01-02")
	rate := decimal.NewFromInt(1)
	if f.Currency != q.target {
		r, ok := rates[day+f.Currency+q.target]
		for name, v := range map[string]int64{"spend": f.Values[facts.Spend], "tx_revenue": f.Values[facts.TxRevenue], "tx_product_costs": f.Values[facts.TxProductCosts]} {
			if !ok && v != 0 {
				missing[f.Currency] = true
				if g.unknown == nil {
					g.unknown = map[string]bool{}
				}
				g.unknown[name] = true
			}
		}
		rate = r
	}
	for name, v := range map[string]int64{"spend": f.Values[facts.Spend], "tx_revenue": f.Values[facts.TxRevenue], "tx_product_costs": f.Values[facts.TxProductCosts]} {
		g.money[name] = g.money[name].Add(decimal.NewFromInt(v).Mul(rate))
		g.counts["stored_"+name] += v // micros as stored, in any currency
	}
	alpha := int64(0)
	if f.Source == "alpha_ads" {
		alpha = f.Values[facts.Impressions]
	}
	for name, v := range map[string]int64{
		"impressions": f.Values[facts.Impressions], "alpha_impressions": alpha, "clicks": f.Values[facts.Clicks], "reach": f.Values[facts.Reach],
		"video_plays": f.Values[facts.VideoPlays], "video_views_3s": f.Values[facts.VideoViews3s], "video_views_p75": f.Values[facts.VideoViewsP75],
		"page_views": f.Values[facts.PageViews], "leads": f.Values[facts.Leads], "initiate_checkout": f.Values[facts.InitiateCheckout],
		"tx_count": f.Values[facts.TxCount], "tx_count_total": f.Values[facts.TxCountTotal], "tx_count_pending": f.Values[facts.TxCountPending],
		"tx_count_refunded": f.Values[facts.TxCountRefunded],
	} {
		g.counts[name] += v
	}
}
