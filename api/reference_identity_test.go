package api_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest/attribref"
	"mtk/facts"
	"mtk/internal/config"
	"mtk/platform"
)

// refTraffic sends traffic through the tracking and webhook routes as production receives it,
// and records, from the contract alone, what each message is to the independent reference
// (engine/enginetest/attribref): a marketing touch of a person (an event with a UTM parameter or
// a referrer from another host), an order row of a person. Persons are the test's knowledge of
// identity: the leads an e-mail or phone finds, merged or not, are one person.
type refTraffic struct {
	e       *env
	t       *testing.T
	tn      trackingTenant
	touches []attribref.Touch
	orders  []attribref.OrderRow
}

// refTouch is what a message carries: an ad's UTM (ad), another UTM (utm) and a page; inURL
// sends the UTM in the page's URL (as a landing page's query) instead of the utm member.
type refTouch struct {
	ad    *seededCampaign
	utm   map[string]string
	page  map[string]any
	inURL bool
}

// event sends an event of lead (identifiers) at at with id eventID ("" for a generated one),
// records it as person's touch when it is one, and returns the stored event id.
func (r *refTraffic) event(person string, lead map[string]any, at time.Time, eventID string, m refTouch) string {
	r.t.Helper()
	body := map[string]any{"config": map[string]any{"name": "PageView"}, "timestamp": at.Unix()}
	if lead != nil {
		body["lead"] = lead
	}
	if eventID != "" {
		body["event_id"] = eventID
	}
	utm := m.utm
	if m.ad != nil {
		utm = m.ad.utm()
	}
	page := maps.Clone(m.page)
	switch {
	case m.inURL:
		q := url.Values{}
		for k, v := range utm {
			q.Set(k, v)
		}
		page["url"] = page["url"].(string) + "?" + q.Encode()
	case utm != nil:
		body["utm"] = utm
	}
	if page != nil {
		body["page"] = page
	}
	res := r.e.event(body, bearer(r.tn.key)...)
	if res.Status != 200 {
		r.t.Fatalf("%d %s", res.Status, res.Body)
	}
	if t, ok := r.touch(person, at, m); ok {
		r.touches = append(r.touches, t)
	}
	id, _ := res.JSON(r.t)["event_id"].(string)
	return id
}

// touch is what m is to the reference at at: a touch when it carries a UTM parameter or a
// referrer whose host is neither the page's nor the container's (www. or not).
func (r *refTraffic) touch(person string, at time.Time, m refTouch) (attribref.Touch, bool) {
	utm := m.utm
	t := attribref.Touch{Person: person, At: at}
	if m.ad != nil {
		utm = m.ad.utm()
		t.Entity = facts.AdEntity{Source: platform.KindAlpha, CampaignID: m.ad.id, AdsetID: m.ad.adsetID, AdID: m.ad.adID}
	}
	t.Dims = facts.TouchDims{UTMSource: utm["utm_source"], UTMMedium: utm["utm_medium"], UTMCampaign: utm["utm_campaign"],
		UTMContent: utm["utm_content"], UTMTerm: utm["utm_term"]}
	host := func(key string) string {
		s, _ := m.page[key].(string)
		u, _ := url.Parse(s)
		if u == nil {
			return ""
		}
		return u.Hostname()
	}
	if page, _ := m.page["url"].(string); page != "" {
		if u, err := url.Parse(page); err == nil {
			t.Dims.LandingPath = u.Path
		}
	}
	t.Dims.ReferrerHost = host("referrer")
	own := strings.TrimPrefix(t.Dims.ReferrerHost, "www.")
	external := own != "" && own != strings.TrimPrefix(host("url"), "www.") && own != "acme.example"
	return t, len(utm) > 0 || external
}

// sell sends an approved order of person (customer: its identifiers, nil for none) with its own
// UTM when own is set, and records it.
func (r *refTraffic) sell(person, id string, customer map[string]any, cents int64, created time.Time, own *refTouch) {
	r.t.Helper()
	o := map[string]any{"id": id, "status": "approved", "value": cents, "currency": "BRL", "product_cost": cents / 3,
		"created_at": created.Format(time.RFC3339), "updated_at": r.e.clock.Now().Format(time.RFC3339)}
	if customer != nil {
		o["customer"] = customer
	}
	row := attribref.OrderRow{Person: person, Order: id, At: created, Revenue: cents * facts.MicrosPerMinor, Count: 1}
	if own != nil {
		o["utm"] = own.ad.utm()
		t, _ := r.touch(person, created, *own)
		row.Own = &t
	}
	if res := r.e.webhook(r.tn.custom.WebhookKey, o); res.Status != 200 {
		r.t.Fatalf("%d %s", res.Status, res.Body)
	}
	r.orders = append(r.orders, row)
}

// refund sends a later webhook of order id refunding it, with neither UTM nor customer (the
// order keeps its person and attribution), and records the row taking the sale back.
func (r *refTraffic) refund(person, id string, cents int64, created time.Time) {
	r.t.Helper()
	r.e.clock.Advance(time.Minute)
	o := map[string]any{"id": id, "status": "refunded", "value": cents, "currency": "BRL",
		"created_at": created.Format(time.RFC3339), "updated_at": r.e.clock.Now().Format(time.RFC3339)}
	if res := r.e.webhook(r.tn.custom.WebhookKey, o); res.Status != 200 {
		r.t.Fatalf("%d %s", res.Status, res.Body)
	}
	r.orders = append(r.orders, attribref.OrderRow{Person: person, Order: id, At: created, Revenue: -cents * facts.MicrosPerMinor, Count: -1})
}

// identityJourneys sends the identity and late-touch traffic (CONTRACT "Query: views,
// cross-channel attribution and identity"): an e-mail, an ad, an internal page, an order and an
// ad touch after it (P1); an order before its customer's first event, then a touch dated before
// it and one after it, both arriving after the webhook (P2); a phone's lead and an e-mail's lead
// merged after the e-mail's order (P3); an organic visit and an order with its own UTM (P4); a
// sale refunded by a webhook without UTM (P5); a touch sent twice with one event_id (P6); touches
// on both sides of the 1-, 7- and 28-day windows' edges and at the order's second (P7); an order
// naming nobody (P8), a customer with no event (P9) and a visitor with no identity. Two touches
// carry their UTM in the page's URL only (P6's e-mail, P7's 7-day edge).
func (r *refTraffic) identityJourneys() {
	r.t.Helper()
	e := r.e
	e.seedCampaigns(r.tn, viewsA, viewsB, viewsC)
	at := func(d, h, m, s int) time.Time { return time.Date(2026, 3, d, h, m, s, 0, time.UTC) }
	email := func(s string) map[string]any { return map[string]any{"email": s} }
	sale := map[string]any{"url": "https://acme.example/sale"}
	news := refTouch{utm: map[string]string{"utm_source": "newsletter", "utm_medium": "email", "utm_campaign": "march"}, page: sale}
	whatsapp := refTouch{utm: map[string]string{"utm_source": "whatsapp", "utm_medium": "chat"}}
	adA, adB, adC := refTouch{ad: &viewsA, page: sale}, refTouch{ad: &viewsB}, refTouch{ad: &viewsC, page: sale}

	r.event("P1", email("ana@x.com"), at(1, 9, 0, 0), "", news)
	r.event("P1", email("ana@x.com"), at(3, 10, 0, 0), "", adA)
	r.event("P1", email("ana@x.com"), at(3, 10, 5, 0), "", refTouch{page: map[string]any{"url": "https://acme.example/cart",
		"referrer": "https://acme.example/sale"}})
	r.sell("P1", "o1", email("ana@x.com"), 15000, at(5, 12, 0, 0), nil)
	r.event("P1", email("ana@x.com"), at(6, 9, 0, 0), "", adC)

	r.sell("P2", "o2", email("Late@X.com"), 8000, at(6, 12, 0, 0), nil)
	e.drain()
	r.event("P2", email("late@x.com"), at(4, 8, 0, 0), "", adB)
	r.event("P2", email("late@x.com"), at(6, 13, 0, 0), "", whatsapp)

	phone := map[string]any{"phone": "+55 11 90000-0003"}
	r.event("P3", phone, at(3, 11, 0, 0), "", refTouch{utm: map[string]string{"utm_source": "whatsapp"},
		page: map[string]any{"url": "https://acme.example/promo"}})
	r.event("P3", email("p3@x.com"), at(2, 10, 0, 0), "", adC)
	r.sell("P3", "o3", email("p3@x.com"), 4567, at(7, 10, 0, 0), nil)
	e.drain()
	r.event("P3", map[string]any{"email": "p3@x.com", "phone": "+55 11 90000-0003"}, e.clock.Now(), "", refTouch{})

	r.event("P4", email("p4@x.com"), at(7, 9, 0, 0), "", refTouch{page: map[string]any{"url": "https://acme.example/",
		"referrer": "https://www.google.com/search"}})
	r.sell("P4", "o4", email("p4@x.com"), 6000, at(7, 11, 0, 0), &adA)

	r.event("P5", email("p5@x.com"), at(2, 14, 0, 0), "", adB)
	r.sell("P5", "o5", email("p5@x.com"), 7777, at(4, 16, 0, 0), nil)
	r.refund("P5", "o5", 7777, at(4, 16, 0, 0))
	r.sell("P5", "o5b", email("p5@x.com"), 1234, at(5, 10, 0, 0), nil)

	newsInURL := news
	newsInURL.inURL = true
	r.event("P6", email("p6@x.com"), at(8, 8, 0, 0), "", newsInURL)
	first := r.event("P6", email("p6@x.com"), at(8, 9, 0, 0), "dup-1", adA)
	res := e.event(map[string]any{"config": map[string]any{"name": "PageView"}, "timestamp": at(8, 9, 0, 0).Unix(),
		"lead": email("p6@x.com"), "event_id": "dup-1", "utm": viewsA.utm(), "page": sale}, bearer(r.tn.key)...)
	if id, _ := res.JSON(r.t)["event_id"].(string); res.Status != 200 || id != first {
		r.t.Fatalf("a repeated event: %d %s, want the first's id %q", res.Status, res.Body, first)
	}
	r.sell("P6", "o6", email("p6@x.com"), 3333, at(8, 10, 0, 0), nil)

	o7 := at(9, 12, 0, 0)
	p7 := email("p7@x.com")
	for _, edge := range []struct {
		before time.Duration
		m      refTouch
	}{
		{0, adA},
		{24 * time.Hour, adB}, {24*time.Hour + time.Second, whatsapp},
		{7 * 24 * time.Hour, refTouch{ad: &viewsC, page: sale, inURL: true}}, {7*24*time.Hour + time.Second, news},
		{28 * 24 * time.Hour, adA}, {28*24*time.Hour + time.Second, refTouch{utm: map[string]string{"utm_source": "partner"}}},
	} {
		r.event("P7", p7, o7.Add(-edge.before), "", edge.m)
	}
	r.sell("P7", "o7", p7, 10001, o7, nil)

	r.sell("", "o8", map[string]any{"name": "Anon"}, 2500, at(8, 15, 0, 0), nil)
	r.sell("P9", "o9", email("p9@x.com"), 1999, at(9, 9, 0, 0), nil)
	r.event("", nil, at(9, 9, 30, 0), "", adA)
	e.drain()
	e.drain()
}

// refRange is the queries' range, 1 to 10 March 2026 in the tenant's zone, as sent and as
// instants [start, end).
func refRange(t *testing.T) (body map[string]any, start, end time.Time) {
	loc, err := time.LoadLocation("America/Sao_Paulo")
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"start": "2026-03-01", "end": "2026-03-10"},
		time.Date(2026, 3, 1, 0, 0, 0, 0, loc), time.Date(2026, 3, 11, 0, 0, 0, 0, loc)
}

// refSums are tx_revenue and tx_count by row key, exact: revenue in micros, counts in units of
// facts.CountUnit.
type refSums map[string][2]int64

// sumCredits sums the credits in [start, end) by key (a credit key returns false: on no row).
func sumCredits(cs []attribref.Credit, start, end time.Time, key func(attribref.Credit) (string, bool)) refSums {
	out := refSums{}
	for _, c := range cs {
		if k, ok := key(c); ok && !c.At.Before(start) && c.At.Before(end) {
			v := out[k]
			out[k] = [2]int64{v[0] + c.Revenue, v[1] + c.Count}
		}
	}
	return out
}

// answerRows asks body and returns tx_revenue and tx_count by the row's member key (null: ""),
// exact as answered, with the answer's view.
func (r *refTraffic) answerRows(body map[string]any, key string) (string, map[string][2]decimal.Decimal) {
	r.t.Helper()
	res := r.e.do("POST", "/v3/query", body, bearer(r.tn.readKey)...)
	if res.Status != 200 {
		r.t.Fatalf("%v: %d %s", body, res.Status, res.Body)
	}
	var ans struct {
		View string                       `json:"view"`
		Data []map[string]json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(res.Body, &ans); err != nil {
		r.t.Fatal(err)
	}
	out := map[string][2]decimal.Decimal{}
	for _, row := range ans.Data {
		var k string
		if key != "" {
			_ = json.Unmarshal(row[key], &k) // null stays ""
		}
		var v [2]decimal.Decimal
		for i, f := range []string{"tx_revenue", "tx_count"} {
			v[i], _ = decimal.NewFromString(string(row[f])) // null adds nothing
		}
		out[k] = [2]decimal.Decimal{out[k][0].Add(v[0]), out[k][1].Add(v[1])}
	}
	return ans.View, out
}

// sameAsReference compares an answer's rows with the reference's exact sums: money to the cent
// (less than a cent from the exact sum: a row's money is not always its exact sum rounded, 108.34
// for 108.333333 = 75 + 16.665 + 16.668333), counts to 4 decimals (the exact sum rounded once);
// rows absent on one side are zero.
func sameAsReference(t *testing.T, name string, got map[string][2]decimal.Decimal, want refSums) {
	t.Helper()
	keys := map[string]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range want {
		keys[k] = true
	}
	cent, halfUnit := decimal.New(1, -2), decimal.New(5, -5)
	for k := range keys {
		w := [2]decimal.Decimal{decimal.New(want[k][0], -6), decimal.New(want[k][1], -6)}
		if got[k][0].Sub(w[0]).Abs().GreaterThanOrEqual(cent) || got[k][1].Sub(w[1]).Abs().GreaterThan(halfUnit) {
			t.Errorf("%s: row %q = %s, %s; the reference %s, %s", name, k, got[k][0], got[k][1], w[0], w[1])
		}
	}
}

// conserves checks that an answer's rows add up to its total: money to the cent, counts within
// the rounding of each row to 4 decimals.
func conserves(t *testing.T, name string, rows map[string][2]decimal.Decimal, total [2]decimal.Decimal) {
	t.Helper()
	var s [2]decimal.Decimal
	for _, v := range rows {
		s = [2]decimal.Decimal{s[0].Add(v[0]), s[1].Add(v[1])}
	}
	if !s[0].Equal(total[0]) || s[1].Sub(total[1]).Abs().GreaterThan(decimal.New(int64(len(rows))*5, -5)) {
		t.Errorf("%s: rows sum to %s, %s; the total is %s, %s", name, s[0], s[1], total[0], total[1])
	}
}

// TestChannelsAndIdentityAgainstReference: traffic with identity (orders before their customer's
// first event, leads merged after an order), late touches (dated before an order, arriving after
// its webhook), touches after an order, refunds without UTM, a repeated event_id and every
// window's edges, sent through the routes and drained as production does, answers under every
// model, date, touch set and window (1, 7, 28, 90 days) the reference's credits: the traffic view
// by utm_source and the ad view by campaign, row by row to the cent, and reported's likewise.
// Conservation: the traffic total is every order's revenue (by conversion date) and its
// utm_source rows with the null row sum to it; the ad view's rows sum to its total.
func TestChannelsAndIdentityAgainstReference(t *testing.T) {
	e := newEnv(t)
	e.cfg.RateLimits = config.Off // hundreds of queries from one key
	e.rebuild()
	r := &refTraffic{e: e, t: t, tn: e.newTrackingTenant("acme", "act_111", "acme.example")}
	r.identityJourneys()
	for _, id := range []string{"o2", "o9"} { // orders whose customer had no lead: they make it
		if lead, customerType := e.orderLeadAndType(t, id); lead == "" || customerType != "new" {
			t.Errorf("order %s: lead %q, customer type %q; want its own lead, new", id, lead, customerType)
		}
	}
	span, start, end := refRange(t)
	var orderTotal int64
	for _, o := range r.orders {
		if !o.At.Before(start) && o.At.Before(end) {
			orderTotal += o.Revenue
		}
	}
	ask := func(meta map[string]any) map[string]any {
		return map[string]any{"project_id": r.tn.project.ID, "fields": []string{"tx_revenue", "tx_count"}, "time": span,
			"metadata": meta, "limit": 1000}
	}
	bySource := func(c attribref.Credit) (string, bool) { return c.Dims.UTMSource, true }
	byCampaign := func(c attribref.Credit) (string, bool) { return c.Entity.CampaignID, c.Entity.Source != "" }
	// check compares both views under attribution attr with the reference's credits cs.
	check := func(name string, attr map[string]any, cs []attribref.Credit, traffic, ads bool, conversion bool) {
		t.Helper()
		if traffic {
			view, rows := r.answerRows(ask(map[string]any{"dimensions": []string{"utm_source"}, "attribution": attr}), "utm_source")
			if view != engine.ViewTraffic {
				t.Errorf("%s: view %q, want traffic", name, view)
			}
			sameAsReference(t, name+" by utm_source", rows, sumCredits(cs, start, end, bySource))
			_, tot := r.answerRows(ask(map[string]any{"dimensions": []string{}, "attribution": attr}), "")
			conserves(t, name+": utm_source rows against the traffic total", rows, tot[""])
			if want := decimal.New(orderTotal, -6); conversion && !tot[""][0].Equal(want) {
				t.Errorf("%s: traffic total %s, want every order's %s", name, tot[""][0], want)
			}
		}
		if ads {
			view, rows := r.answerRows(ask(map[string]any{"level": "campaign", "attribution": attr}), "campaign_id")
			if view != engine.ViewAds {
				t.Errorf("%s: view %q, want ads", name, view)
			}
			sameAsReference(t, name+" by campaign", rows, sumCredits(cs, start, end, byCampaign))
			_, tot := r.answerRows(ask(map[string]any{"attribution": attr}), "")
			conserves(t, name+": campaign rows against the ad view's total", rows, tot[""])
		}
	}
	reported := attribref.Reported(r.touches, r.orders)
	check("reported", map[string]any{"model": engine.ModelReported, "touches": facts.TouchesAll}, reported, true, false, true)
	check("reported", map[string]any{"model": engine.ModelReported}, reported, false, true, true)
	for _, model := range engine.Models[1:] {
		for _, date := range engine.AttributionDates {
			for _, set := range facts.TouchSets {
				for _, window := range []int{1, 7, 28, 90} {
					attr := map[string]any{"model": model, "date": date, "window_days": window, "touches": set}
					cs := attribref.Credits(r.touches, r.orders, model, time.Duration(window)*24*time.Hour, date == engine.DateClick, set)
					check(fmt.Sprint(attr), attr, cs, true, true, date == engine.DateConversion)
				}
			}
		}
	}
}
