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
	"slices"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/ingest/outbox"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/platform"
	adsync "mtk/sync"
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
	utms, err := demoUTMs(ctx, adsync.NewStore(st.pg), demo)
	if err != nil {
		return err
	}
	clk := clock.Real{}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.RateLimits = "off"
	app, closeApp := newApp(cfg, st, clk, log, nil)
	defer closeApp()
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
					webhook: "/v2/tracking/generic?k=" + webhookKey, utms: utms, r: rand.New(rand.NewSource(int64(day)))}
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
	if _, err := outbox.NewEventDrainer(st.pg, st.ch, clk, log).RunOnce(ctx); err != nil {
		return err
	}
	_, err = outbox.NewDrainer(st.pg, st.ch, clk, log).RunOnce(ctx)
	return err
}

// demoUTMs are the UTM parameters of every synced demo ad, by the naming convention
// (name|id for campaign, ad set and ad).
func demoUTMs(ctx context.Context, store *adsync.Store, demo demoOutput) ([]map[string]string, error) {
	var out []map[string]string
	for _, c := range demo.Connections {
		if c.SourceID == nil {
			continue
		}
		objs, err := store.Objects(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, 0, len(objs))
		for id := range objs {
			ids = append(ids, id)
		}
		slices.Sort(ids) // a stable order: the traffic is the same on every machine
		for _, id := range ids {
			ad := objs[id]
			if ad.Level != adsync.LevelAd {
				continue
			}
			set, camp := objs[ad.ParentID], objs[ad.CampaignID]
			out = append(out, map[string]string{"utm_source": c.Kind, "utm_campaign": camp.Name + "|" + camp.ID,
				"utm_medium": set.Name + "|" + set.ID, "utm_content": ad.Name + "|" + ad.ID})
		}
	}
	return out, nil
}

type trafficSender struct {
	app *fiber.App
	// domain is the container's: page views are public calls that name it.
	domain               string
	trackingKey, webhook string
	utms                 []map[string]string
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

// sendDay makes a day's visitors (day days ago): a page view each, then some leads, checkouts
// and orders.
func (s trafficSender) sendDay(day int, now time.Time) error {
	start := now.Add(-time.Duration(day) * 24 * time.Hour).Truncate(time.Hour).Add(-23 * time.Hour)
	for i := range 15 + s.r.Intn(15) {
		visitor := day*1000 + i
		at := start.Add(time.Duration(s.r.Intn(23*60)) * time.Minute)
		var utm map[string]string
		if s.r.Intn(10) < 8 {
			utm = s.utms[s.r.Intn(len(s.utms))]
		}
		page := map[string]any{"url": "https://" + s.domain + "/product?" + query(utm), "referrer": "https://alpha.example/"}
		if err := s.post("/v3/tracking/events", map[string]any{"domain": s.domain, "source": "website",
			"event_id": fmt.Sprintf("demo-pv-%d", visitor), "timestamp": at.Unix(), "page": page,
			"config": map[string]any{"name": "page_view"}}, ""); err != nil {
			return err
		}
		if s.r.Intn(10) >= 4 {
			continue
		}
		lead := map[string]any{"email": fmt.Sprintf("visitor%d@demo.example", visitor), "first_name": "Visitor",
			"last_name": fmt.Sprint(visitor), "city": "São Paulo", "state": "SP", "country": "BR"}
		ev := map[string]any{"event_id": fmt.Sprintf("demo-lead-%d", visitor), "timestamp": at.Add(2 * time.Minute).Unix(),
			"config": map[string]any{"name": "Lead"}, "lead": lead, "utm": utm, "source": "api"}
		if day < 6 { // recent leads are forwarded too
			ev["config"] = map[string]any{"name": "Lead", "alpha": map[string]any{"name": "Lead"}}
		}
		if err := s.post("/v3/tracking/events", ev, s.trackingKey); err != nil {
			return err
		}
		if s.r.Intn(3) > 0 {
			continue
		}
		if err := s.post("/v3/tracking/events", map[string]any{"event_id": fmt.Sprintf("demo-ic-%d", visitor),
			"timestamp": at.Add(5 * time.Minute).Unix(), "config": map[string]any{"name": "InitiateCheckout"},
			"lead": lead}, s.trackingKey); err != nil {
			return err
		}
		if err := s.order(visitor, lead, at.Add(8*time.Minute), now); err != nil {
			return err
		}
	}
	return nil
}

// order sends a checkout's order: pending first, then (most often) approved, some refunded
// later; the order carries no UTM, so it takes its lead's.
func (s trafficSender) order(visitor int, lead map[string]any, at, now time.Time) error {
	value := int64(4990 + s.r.Intn(40)*1000)
	tx := map[string]any{"id": fmt.Sprintf("demo-order-%d", visitor), "value": value, "currency": "BRL",
		"created_at": at.Format(time.RFC3339), "customer": map[string]any{"email": lead["email"], "name": "Visitor"},
		"items": []map[string]any{{"id": fmt.Sprintf("sku-%d", 1+s.r.Intn(5)), "name": "Demo product", "quantity": 1,
			"unit_price": value, "cost": value * int64(30+s.r.Intn(30)) / 100}}}
	states := []string{"pending", "approved"}
	switch s.r.Intn(10) {
	case 0:
		states = append(states, "refunded")
	case 1:
		states = []string{"pending", "failed"}
	case 2:
		states = []string{"pending"}
	}
	for i, st := range states {
		updated := at.Add(time.Duration(i*30) * time.Minute)
		if updated.After(now) {
			break
		}
		tx["status"], tx["updated_at"] = st, updated.Format(time.RFC3339)
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
