package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net/http/httptest"
	"net/url"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/adsync"
	"mtk/api"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/wire"
	"mtk/platform"
)

// demoTrafficDays is how many days of events and orders the demo sends (the events route takes
// timestamps up to 90 days old).
const demoTrafficDays = 88

// seedDemoTraffic sends the demo's business history through the real routes of an in-process
// server: page views, leads and checkouts on the demo containers (public and API key calls), and
// orders on the custom connection's webhook, most of them carrying the UTM of a demo ad, the
// others from the shop's unpaid sources (sendDay). It runs
// once: a project that has events is left alone. The fact outbox is drained at the end, so the
// first query shows the numbers.
func seedDemoTraffic(ctx context.Context, st stores, cfg config.Config, demo demoOutput, now time.Time) error {
	var n uint64
	if err := st.ch.QueryRow(ctx, "SELECT count() FROM events WHERE project_id = ?", demo.Project.ID).Scan(&n); err != nil || n > 0 {
		return err
	}
	ads, err := demoAds(ctx, st.ch, adsync.NewStore(st.pg), demo.Project.ID, demo.Connections)
	if err != nil {
		return err
	}
	loc, err := time.LoadLocation(demo.Project.Timezone)
	if err != nil {
		return err
	}
	clk := clock.Real{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.RateLimits = config.Off
	sys, err := wire.Build(cfg, st.pg, st.ch, wire.Options{Clock: clk, Logger: log})
	if err != nil {
		return err
	}
	app := api.New(sys.API())
	defer sys.Close()
	var webhookKey string
	for _, c := range demo.Connections {
		if c.Kind == platform.KindCustom {
			webhookKey = c.WebhookKey
		}
	}
	// Days are sent concurrently, each from its own seed; within a day, in order.
	days := make(chan int)
	errs := make(chan error, demoTrafficDays+1)
	var wg sync.WaitGroup
	for range demoSenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for day := range days {
				s := trafficSender{app: app, domain: "demo-store.example", trackingKey: demo.Keys[1].Token,
					webhook: "/v2/tracking/generic?k=" + webhookKey, ads: ads, currency: demo.Project.Currency, loc: loc,
					r: rand.New(rand.NewSource(int64(day)))}
				errs <- s.sendDay(day, now)
			}
		}()
	}
	for day := demoTrafficDays; day >= 0; day-- {
		days <- day
	}
	close(days)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	sys.Close() // stores what is queued before the drain
	return sys.Drain(ctx)
}

type trafficSender struct {
	app *fiber.App
	// domain is the container's: page views are public calls that name it.
	domain               string
	trackingKey, webhook string
	ads                  []demoAd
	currency             string         // the project's: what orders from unpaid sources are in
	loc                  *time.Location // the project's zone, whose dates the ads' days are
	r                    *rand.Rand
}

// post sends body to path as the browser ua (the shop's server passes its visitor's User-Agent
// on with the events it sends).
func (s trafficSender) post(path string, body any, key, ua string) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req := httptest.NewRequest("POST", path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", ua)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := s.app.Test(req, -1)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		out, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("seed: %s answered %d: %s", path, resp.StatusCode, out)
	}
	return nil
}

// checkoutAgent is the User-Agent of the checkout's webhooks.
const checkoutAgent = "DemoCheckout-Webhooks/1.0"

// demoSenders is how many days are sent at once.
const demoSenders = 16

// visit is one browser session at the shop: when, with which browser, on which landing page, from
// which referrer and link.
type visit struct {
	id       string // unique in the project: names its events
	at       time.Time
	ua       string
	url      string            // the landing page, with the link's UTM
	referrer string            // "" for none
	utm      map[string]string // the link's UTM, nil for none
}

// newVisit is a visit to landing at at, from a link with utm (nil: none) on referrer.
func (s trafficSender) newVisit(id string, at time.Time, ua, landing, referrer string, utm map[string]string) visit {
	u := "https://" + s.domain + landing
	if q := query(utm); q != "" {
		u += "?" + q
	}
	return visit{id: id, at: at, ua: ua, url: u, referrer: referrer, utm: utm}
}

// sendDay sends the shop's traffic of one local date (day days ago). Ad by ad: its buyers (its
// synced clicks that day times its conversion) each view the page from the ad's link, start a
// checkout and order, most after a journey of earlier visits from ads (adBuyer) whose first
// signed them up (a Lead); about as many other visitors only look. Orders carry the
// ad's UTM as a shop's checkout passes it, and their status updates carry none. Then the unpaid
// sources bring buyers and lookers in proportion to the day's paid buyers, some buyers come back
// weeks later through e-mail or WhatsApp, and crawlers read a few pages.
func (s trafficSender) sendDay(day int, now time.Time) error {
	local := now.In(s.loc)
	start := time.Date(local.Year(), local.Month(), local.Day()-day, 0, 0, 0, 0, s.loc)
	span := min(now.Sub(start), 24*time.Hour) - 30*time.Minute // the day so far, for today
	if span <= 0 {
		return nil
	}
	date := start.Format(time.DateOnly)
	visitor := day * 100_000
	paid := 0.0
	for _, ad := range s.ads {
		d := ad.days[date]
		if d.clicks == 0 {
			continue
		}
		expected := float64(d.clicks) * ad.conversion
		paid += expected
		buyers := s.round(expected)
		costPerOrder := float64(d.spendMicros) / float64(d.clicks) / ad.conversion / 10_000 // cents
		// The buyers' journeys' earlier visits stand in for as many lookers, so that the demo
		// sends about as many page views as before journeys.
		skip := 0
		for i := 0; i < 2*buyers; i++ {
			if i%2 == 1 && skip > 0 {
				skip--
				continue
			}
			visitor++
			at := start.Add(time.Duration(s.r.Int63n(int64(span))))
			v := s.newVisit(fmt.Sprint(visitor), at, browser(s.r), pick(s.r, paidLandings), paidReferrer(ad.utm), ad.utm)
			if i%2 == 1 {
				if err := s.pageView(v, ""); err != nil {
					return err
				}
				continue // a visitor who only looks
			}
			// Worth the ad's cost per order times its ROAS over the share of orders paid (in the ad
			// account's currency, ±30 %).
			target := max(int64(costPerOrder*ad.roas/paidShare()*(0.7+0.6*s.r.Float64())), 500)
			earlier, err := s.adBuyer(visitor, v, ad.currency, basketNear(s.r, target, ad.currency), now)
			if err != nil {
				return err
			}
			skip += earlier
		}
	}
	for _, ch := range demoChannels {
		buyers := s.round(paid * ch.share)
		for i := 0; i < 2*buyers; i++ {
			visitor++
			at := start.Add(time.Duration(s.r.Int63n(int64(span))))
			v := s.channelVisit(fmt.Sprint(visitor), ch, at, browser(s.r))
			if err := s.pageView(v, ""); err != nil {
				return err
			}
			if i%2 == 0 {
				if err := s.buyer(visitor, v, s.currency, randomBasket(s.r), now); err != nil {
					return err
				}
			}
		}
	}
	for i := range 2 + s.r.Intn(3) {
		at := start.Add(time.Duration(s.r.Int63n(int64(span))))
		v := s.newVisit(fmt.Sprintf("%d-bot%d", day, i), at, pick(s.r, crawlers), pick(s.r, paidLandings), "", nil)
		if err := s.pageView(v, ""); err != nil {
			return err
		}
	}
	return nil
}

// round is x rounded up with the probability of its fraction, so that small expectations add up.
func (s trafficSender) round(x float64) int {
	n := int(x)
	if s.r.Float64() < x-float64(n) {
		n++
	}
	return n
}

// channelVisit is a visit from the unpaid source ch.
func (s trafficSender) channelVisit(id string, ch channel, at time.Time, ua string) visit {
	var utm map[string]string
	if ch.utm != nil {
		utm = ch.utm(s.r)
	}
	return s.newVisit(id, at, ua, pick(s.r, ch.landings), pick(s.r, ch.referrers), utm)
}

// pageView sends v's page view; email names the visitor ("" for none): the shop's site passes
// the e-mail of a visitor who signed up before, whom it knows by its cookie.
func (s trafficSender) pageView(v visit, email string) error {
	ev := map[string]any{"domain": s.domain, "source": "website",
		"event_id": "demo-pv-" + v.id, "timestamp": v.at.Unix(), "page": map[string]any{"url": v.url, "referrer": v.referrer},
		"config": map[string]any{"name": "page_view"}}
	if email != "" {
		ev["lead"] = map[string]any{"email": email}
	}
	return s.post("/v3/tracking/events", ev, "", v.ua)
}

// buyer signs up, starts a checkout and orders b; some buyers come back for more later.
func (s trafficSender) buyer(visitor int, v visit, currency string, b basket, now time.Time) error {
	customer, err := s.signUp(visitor, v, now)
	if err != nil {
		return err
	}
	if err := s.checkout(v, customer, currency, b, now); err != nil {
		return err
	}
	return s.returns(visitor, v, customer, now)
}

// signUp sends the Lead of visitor in visit v and returns the customer the checkout names.
func (s trafficSender) signUp(visitor int, v visit, now time.Time) (map[string]any, error) {
	lead := map[string]any{"email": fmt.Sprintf("visitor%d@demo.example", visitor), "first_name": "Visitor",
		"last_name": fmt.Sprint(visitor), "city": "São Paulo", "state": "SP", "country": "BR"}
	ev := map[string]any{"event_id": "demo-lead-" + v.id, "timestamp": v.at.Add(2 * time.Minute).Unix(),
		"config": map[string]any{"name": "Lead"}, "lead": lead, "source": "api", "page": s.page(v)}
	if v.utm != nil {
		ev["utm"] = v.utm
	}
	if now.Sub(v.at) < 6*24*time.Hour { // recent leads are forwarded too
		ev["config"] = map[string]any{"name": "Lead", "alpha": map[string]any{"name": "Lead"}}
	}
	if err := s.post("/v3/tracking/events", ev, s.trackingKey, v.ua); err != nil {
		return nil, err
	}
	return map[string]any{"email": lead["email"], "name": fmt.Sprint("Visitor ", visitor)}, nil
}

// page is what the shop's server sends with a visit's events: the visit's landing page and
// referrer, so that its order keeps where the buyer came from.
func (s trafficSender) page(v visit) map[string]any {
	return map[string]any{"url": v.url, "referrer": v.referrer}
}

// checkout starts a checkout in visit v and orders b.
func (s trafficSender) checkout(v visit, customer map[string]any, currency string, b basket, now time.Time) error {
	if err := s.post("/v3/tracking/events", map[string]any{"event_id": "demo-ic-" + v.id,
		"timestamp": v.at.Add(5 * time.Minute).Unix(), "config": map[string]any{"name": "InitiateCheckout"},
		"lead": map[string]any{"email": customer["email"]}, "page": s.page(v)}, s.trackingKey, v.ua); err != nil {
		return err
	}
	o := demoOrder{id: "demo-order-" + v.id, at: v.at.Add(8 * time.Minute), currency: currency, customer: customer,
		utm: v.utm, basket: b, payment: drawPayment(s.r)}
	for _, body := range o.webhooks(s.r, now) {
		if err := s.post(s.webhook, body, "", checkoutAgent); err != nil {
			return err
		}
	}
	return nil
}

// returns sends the later visits of one buyer in eight: one to two more orders, each 7 to 40
// days after the last, through the shop's e-mails or WhatsApp, mostly from the same device.
func (s trafficSender) returns(visitor int, first visit, customer map[string]any, now time.Time) error {
	if s.r.Intn(8) != 0 {
		return nil
	}
	at := first.at
	for n := range 1 + s.r.Intn(2) {
		at = at.Add(time.Duration(7*24*60+s.r.Intn(33*24*60)) * time.Minute)
		if at.After(now.Add(-30 * time.Minute)) {
			return nil
		}
		ua := first.ua
		if s.r.Intn(5) == 0 {
			ua = browser(s.r)
		}
		v := s.channelVisit(fmt.Sprintf("%d-%d", visitor, n+2), pick(s.r, returningChannels), at, ua)
		if err := s.pageView(v, ""); err != nil {
			return err
		}
		if err := s.checkout(v, customer, s.currency, randomBasket(s.r), now); err != nil {
			return err
		}
	}
	return nil
}

// query is a URL query of utm (empty for none).
func query(utm map[string]string) string {
	q := ""
	for _, k := range []string{"utm_source", "utm_medium", "utm_campaign", "utm_content"} {
		if v, ok := utm[k]; ok {
			if q != "" {
				q += "&"
			}
			q += k + "=" + url.QueryEscape(v)
		}
	}
	return q
}
