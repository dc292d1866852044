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
// orders on the custom connection's webhook, most of them carrying the UTM of a demo ad. It runs
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
	cfg.RateLimits = "off"
	sys := wire.Build(cfg, st.pg, st.ch, wire.Options{Clock: clk, Logger: log})
	app := api.New(sys)
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
					webhook: "/v2/tracking/generic?k=" + webhookKey, ads: ads, loc: loc, r: rand.New(rand.NewSource(int64(day)))}
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
	loc                  *time.Location // the project's zone, whose dates the ads' days are
	r                    *rand.Rand
}

func (s trafficSender) post(path string, body any, key string) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req := httptest.NewRequest("POST", path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Mozilla/5.0 (demo seed)")
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

// demoSenders is how many days are sent at once.
const demoSenders = 16

// sendDay sends the shop's traffic of one local date (day days ago), ad by ad: its buyers (its
// synced clicks that day times its conversion) each view the page from the ad's link, sign up
// (a Lead), start a checkout and order; as many other visitors only look. Orders carry the
// ad's UTM as a shop's checkout passes it, and their status updates carry none.
func (s trafficSender) sendDay(day int, now time.Time) error {
	local := now.In(s.loc)
	start := time.Date(local.Year(), local.Month(), local.Day()-day, 0, 0, 0, 0, s.loc)
	span := min(now.Sub(start), 24*time.Hour) - 30*time.Minute // the day so far, for today
	if span <= 0 {
		return nil
	}
	date := start.Format(time.DateOnly)
	visitor := day * 100_000
	for _, ad := range s.ads {
		d := ad.days[date]
		if d.clicks == 0 {
			continue
		}
		expected := float64(d.clicks) * ad.conversion
		buyers := int(expected)
		if s.r.Float64() < expected-float64(buyers) {
			buyers++
		}
		for i := 0; i < 2*buyers; i++ {
			visitor++
			at := start.Add(time.Duration(s.r.Int63n(int64(span))))
			if err := s.pageView(visitor, ad.utm, at); err != nil {
				return err
			}
			if i%2 == 1 {
				continue // a visitor who only looks
			}
			if err := s.buyer(visitor, ad, d, at, now); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s trafficSender) pageView(visitor int, utm map[string]string, at time.Time) error {
	page := map[string]any{"url": "https://" + s.domain + "/product?" + query(utm), "referrer": "https://alpha.example/"}
	return s.post("/v3/tracking/events", map[string]any{"domain": s.domain, "source": "website",
		"event_id": fmt.Sprintf("demo-pv-%d", visitor), "timestamp": at.Unix(), "page": page,
		"config": map[string]any{"name": "page_view"}}, "")
}

// buyer signs up, starts a checkout and orders.
func (s trafficSender) buyer(visitor int, ad demoAd, d adDay, at, now time.Time) error {
	lead := map[string]any{"email": fmt.Sprintf("visitor%d@demo.example", visitor), "first_name": "Visitor",
		"last_name": fmt.Sprint(visitor), "city": "São Paulo", "state": "SP", "country": "BR"}
	ev := map[string]any{"event_id": fmt.Sprintf("demo-lead-%d", visitor), "timestamp": at.Add(2 * time.Minute).Unix(),
		"config": map[string]any{"name": "Lead"}, "lead": lead, "utm": ad.utm, "source": "api"}
	if now.Sub(at) < 6*24*time.Hour { // recent leads are forwarded too
		ev["config"] = map[string]any{"name": "Lead", "alpha": map[string]any{"name": "Lead"}}
	}
	if err := s.post("/v3/tracking/events", ev, s.trackingKey); err != nil {
		return err
	}
	if err := s.post("/v3/tracking/events", map[string]any{"event_id": fmt.Sprintf("demo-ic-%d", visitor),
		"timestamp": at.Add(5 * time.Minute).Unix(), "config": map[string]any{"name": "InitiateCheckout"},
		"lead": lead}, s.trackingKey); err != nil {
		return err
	}
	return s.order(visitor, ad, d, lead, at.Add(8*time.Minute), now)
}

// order sends a buyer's order, worth the ad's cost per order times its ROAS (in the ad
// account's currency, ±30 %): pending with the ad's UTM and the customer, then status updates
// alone, as checkouts send them: mostly approved, some refunded or charged back later, some
// left pending or failed.
func (s trafficSender) order(visitor int, ad demoAd, d adDay, lead map[string]any, at, now time.Time) error {
	costPerOrder := float64(d.spendMicros) / float64(d.clicks) / ad.conversion / 10_000 // cents
	value := max(int64(costPerOrder*ad.roas*(0.7+0.6*s.r.Float64())), 500)
	first := map[string]any{"id": fmt.Sprintf("demo-order-%d", visitor), "value": value, "currency": ad.currency,
		"created_at": at.Format(time.RFC3339), "customer": map[string]any{"email": lead["email"], "name": "Visitor"},
		"utm": ad.utm, "items": []map[string]any{{"id": fmt.Sprintf("sku-%d", 1+s.r.Intn(5)), "name": "Demo product",
			"quantity": 1, "unit_price": value, "cost": value * int64(30+s.r.Intn(30)) / 100}}}
	states := []string{"pending", "approved"}
	switch n := s.r.Intn(100); {
	case n < 6:
		states = append(states, "refunded")
	case n < 7:
		states = append(states, "chargeback")
	case n < 12:
		states = []string{"pending"}
	case n < 15:
		states = []string{"pending", "failed"}
	}
	for i, st := range states {
		updated := at.Add(time.Duration(i*i*90) * time.Minute)
		if updated.After(now) {
			break
		}
		tx := map[string]any{"id": first["id"], "status": st, "value": value, "currency": ad.currency,
			"created_at": first["created_at"], "updated_at": updated.Format(time.RFC3339)}
		if i == 0 {
			tx = first
			tx["status"], tx["updated_at"] = st, updated.Format(time.RFC3339)
		}
		if err := s.post(s.webhook, map[string]any{"transaction": tx}, ""); err != nil {
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
