package engine_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest/attribref"
	"mtk/facts"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// creditJourneys credits js under model with the independent reference (engine/enginetest/
// attribref): each journey's lead is its person, its touches' entities those writeCredits stores.
func creditJourneys(js []journey, model string, window time.Duration, click bool, set string) []attribref.Credit {
	var touches []attribref.Touch
	var orders []attribref.OrderRow
	for _, j := range js {
		if j.kind == "touch" {
			touches = append(touches, attribref.Touch{Person: j.lead, At: j.at, Entity: j.entity(), Dims: j.dims})
			continue
		}
		orders = append(orders, attribref.OrderRow{Person: j.lead, Order: j.order, At: j.at, Revenue: j.revenue, Count: j.count})
	}
	return attribref.Credits(touches, orders, model, window, click, set)
}

// generatedJourneys are random journeys around March 2024: leads with 0-6 touches on 8 ads of
// two sources and four campaigns over hours to weeks, and 0-3 orders each; some orders are
// refunded after the sale, some re-attributed from another lead, some have no lead.
func generatedJourneys(seed uint64) []journey {
	r := rand.New(rand.NewPCG(seed, 1))
	first := time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC)
	at := func() time.Time { return first.Add(time.Duration(r.IntN(70*24*3600)) * time.Second) }
	var js []journey
	for l := range 80 {
		lead := fmt.Sprintf("L%d", l)
		for range r.IntN(7) {
			ad := r.IntN(8)
			src := []string{"alpha_ads", "beta_ads"}[ad%2]
			js = append(js, journey{kind: "touch", lead: lead, at: at(), ad: fmt.Sprintf("A%d", ad), src: src,
				camp: fmt.Sprintf("C%d", ad/2)})
		}
		for o := range r.IntN(4) {
			id, when, value := fmt.Sprintf("O%d-%d", l, o), at(), int64(1+r.IntN(50000))*10_000
			owner := lead
			if r.IntN(10) == 0 {
				owner = ""
			}
			sale := journey{kind: "order", lead: owner, order: id, at: when, revenue: value, count: 1, total: 1}
			switch r.IntN(6) {
			case 0: // refunded after the sale
				neg := sale
				neg.revenue, neg.count, neg.total = -value, -1, -1
				js = append(js, sale, neg, journey{kind: "order", lead: owner, order: id, at: when, total: 1, refunded: 1})
			case 1: // first another lead's
				other := sale
				other.lead = fmt.Sprintf("L%d", r.IntN(80))
				neg := other
				neg.revenue, neg.count, neg.total = -value, -1, -1
				js = append(js, other, neg, sale)
			default:
				js = append(js, sale)
			}
		}
	}
	return js
}

// TestAttributionAgainstReference: for every model, date, window, granularity and level, the engine's
// answer over generated journeys is the reference's credits, row by row (money within a cent of
// the exact credit, counts to 4 decimals exactly); by conversion date every model's total, with a
// level or not, is the entities' credits: the orders' total less the unattributed, to the cent.
func TestAttributionAgainstReference(t *testing.T) {
	js := generatedJourneys(11)
	svc, scope, loc, start, end, orderTotal := referenceMarch(t, js)
	bucket := map[string]func(time.Time) string{
		"":     func(time.Time) string { return "" },
		"day":  func(t time.Time) string { return t.In(loc).Format(time.DateOnly) },
		"week": func(t time.Time) string { return monday(t.In(loc)).Format(time.DateOnly) },
		"15min": func(t time.Time) string {
			l := t.In(loc)
			return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute()/15*15, 0, 0, loc).Format(time.RFC3339)
		},
		"hour": func(t time.Time) string {
			l := t.In(loc)
			return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), 0, 0, 0, loc).Format(time.RFC3339)
		},
	}
	for _, model := range engine.Models[1:] {
		for _, date := range engine.AttributionDates {
			for _, window := range []int{7, 28, 90} { // one block on raw, 3 or 4 on the rollups
				credits := creditJourneys(js, model, time.Duration(window)*24*time.Hour, date == engine.DateClick, facts.TouchesAds)
				attr := fmt.Sprintf(`{"model":%q,"date":%q,"window_days":%d}`, model, date, window)
				var unattributed int64
				for _, c := range credits {
					if c.Entity.Source == "" && !c.At.Before(start) && c.At.Before(end) {
						unattributed += c.Revenue
					}
				}
				for _, gran := range []string{"", "day", "week", "hour", "15min"} { // 15min reads credits_raw
					for _, level := range []string{"", "campaign", "ad"} {
						name := attr + " " + gran + " " + level
						want := map[string][2]float64{}
						for _, c := range credits {
							if c.At.Before(start) || !c.At.Before(end) || c.Entity.Source == "" {
								continue
							}
							k := bucket[gran](c.At) + "|" + c.Entity.Source + "|" + map[string]string{"": "", "campaign": c.Entity.CampaignID, "ad": c.Entity.AdID}[level]
							if level == "" {
								k = bucket[gran](c.At) + "||"
							}
							v := want[k]
							want[k] = [2]float64{v[0] + float64(c.Revenue)/1e6, v[1] + float64(c.Count)}
						}
						for k, v := range want { // a count is its exact sum, rounded once
							want[k] = [2]float64{v[0], attribref.Count(v[1])}
						}
						got, sum := referenceRows(t, svc, scope, attr, gran, level)
						compareCredits(t, name, got, want)
						if date == engine.DateConversion {
							wantSum := float64(orderTotal-unattributed) / 1e6
							if math.Abs(sum-wantSum) > 0.005 {
								t.Errorf("%s: rows sum to %.2f, want %.2f (orders %.2f, unattributed %.2f)", name, sum, wantSum,
									float64(orderTotal)/1e6, float64(unattributed)/1e6)
							}
						}
					}
				}
			}
		}
	}
}

func monday(t time.Time) time.Time {
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
}

// referenceRows answers tx_revenue and tx_count over March 2024 and returns the non-zero rows by
// "bucket|source|id", with the sum of their revenue.
func referenceRows(t *testing.T, svc *engine.Service, scope engine.Scope, attr, gran, level string) (map[string][2]float64, float64) {
	t.Helper()
	tm := `{"start":"2024-03-01","end":"2024-03-30"`
	if gran != "" {
		tm += `,"granularity":"` + gran + `"`
	}
	meta := `{"attribution":` + attr
	if level != "" {
		meta += `,"level":"` + level + `"`
	}
	res := query(t, svc, scope, `{"project_id":"prj_j","fields":["tx_revenue","tx_count"],"time":`+tm+`},"metadata":`+meta+
		`},"limit":50000}`)
	out := map[string][2]float64{}
	sum := 0.0
	for _, r := range res.Data {
		v := values(t, r)
		sum += v[0]
		if v == [2]float64{} {
			continue
		}
		var k []string
		for _, key := range []string{"date", "source", level + "_id"} {
			x, _ := r.Get(key)
			s, _ := x.(string)
			k = append(k, s)
		}
		out[strings.Join(k, "|")] = v
	}
	return out, sum
}

func compareCredits(t *testing.T, name string, got, want map[string][2]float64) {
	t.Helper()
	for k, w := range want {
		if math.Abs(w[0]) < 0.005 && w[1] == 0 {
			delete(want, k)
		}
	}
	bad := 0
	for k, w := range want {
		g := got[k]
		if math.Abs(g[0]-w[0]) > 0.0101 || math.Abs(g[1]-w[1]) > 1e-9 {
			if bad++; bad <= 3 {
				t.Errorf("%s: %s = %v, want %v", name, k, g, w)
			}
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			if bad++; bad <= 3 {
				t.Errorf("%s: %s = %v, not in the reference", name, k, g)
			}
		}
	}
}

// compareAttribution runs the statements of every model and date, at a few granularities and
// levels, over the generated journeys on both engines (TestConformanceWithCurrentClickHouse).
func compareAttribution(t *testing.T, c *comparer) {
	scope := engine.Scope{ProjectID: "prj_j", Currency: "USD", TimeZone: "America/Sao_Paulo", SubHour: true}
	for _, model := range engine.Models[1:] {
		for _, date := range engine.AttributionDates {
			for _, shape := range []string{`,"granularity":"day"},"metadata":{"level":"campaign",`, `,"granularity":"hour"},"metadata":{`,
				`,"granularity":"15min"},"metadata":{"level":"ad",`, `},"metadata":{`,
				// The traffic view: credits by touch dimensions beside the events of the per-dimension
				// rollup, and of the wide table with a level.
				`,"granularity":"day"},"metadata":{"dimensions":["utm_source"],`,
				`},"metadata":{"level":"campaign","dimensions":["utm_medium","device"],`} {
				fields := `"tx_revenue","tx_count","roas"`
				if strings.Contains(shape, "dimensions") {
					fields = `"tx_revenue","tx_count","page_views"`
				}
				body := `{"project_id":"prj_j","fields":[` + fields + `],"time":{"start":"2024-03-01","end":"2024-03-30"` +
					shape + `"attribution":{"model":"` + model + `","date":"` + date + `"}}}`
				compiled, err := engine.Compile(scope, mustInput(t, body), testNow)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range compiled.Attempts {
					c.sameStatement(a.Query)
				}
			}
		}
	}
}

// referenceMarch writes js's credits for project prj_j in São Paulo and returns what the
// reference tests query them with: the engine, its scope, the zone, March 2024 as [start, end)
// and the revenue of its orders (micros).
func referenceMarch(t *testing.T, js []journey) (svc *engine.Service, scope engine.Scope, loc *time.Location,
	start, end time.Time, orderTotal int64) {
	ch := testenv.ClickHouse(t)
	zone := "America/Sao_Paulo"
	writeCredits(t, ch.Conn, "prj_j", zone, js)
	svc = engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	loc, _ = time.LoadLocation(zone)
	scope = engine.Scope{ProjectID: "prj_j", Currency: "USD", TimeZone: zone, SubHour: true}
	start, end = time.Date(2024, 3, 1, 0, 0, 0, 0, loc), time.Date(2024, 3, 31, 0, 0, 0, 0, loc)
	for _, j := range js {
		if j.kind == "order" && !j.at.Before(start) && j.at.Before(end) {
			orderTotal += j.revenue
		}
	}
	return svc, scope, loc, start, end, orderTotal
}
