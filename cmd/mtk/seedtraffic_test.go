package main

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// assertDemoTraffic checks the seeded project's stored events and orders against what the
// traffic-source, device, product and customer breakdowns need: several sources, real browsers
// on several landing pages, a small catalogue with costs, every order's lifecycle, returning
// customers.
func assertDemoTraffic(t *testing.T, projectID string) {
	t.Helper()
	cfg, err := loadConfig()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := openStores(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()

	// Sources: the ad networks' UTM, e-mail and WhatsApp UTM, search and Instagram referrers
	// without UTM, direct visits with neither.
	rows, err := st.ch.Query(ctx, `SELECT utm_source, domain(referrer) AS host, toInt64(count()) FROM events
		WHERE project_id = ? AND name = 'page_view' GROUP BY utm_source, host`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]int64{}
	for rows.Next() {
		var source, host string
		var n int64
		if err := rows.Scan(&source, &host, &n); err != nil {
			t.Fatal(err)
		}
		if source == "" {
			source = "referrer " + host
		}
		sources[source] += n
	}
	rows.Close()
	for _, want := range []string{"alpha_ads", "beta_ads", "gamma_ads", "email", "whatsapp", "referrer www.google.com",
		"referrer www.bing.com", "referrer l.instagram.com", "referrer "} {
		if sources[want] < 10 {
			t.Errorf("page views from %q: %d of %v", want, sources[want], sources)
		}
	}

	// Devices and pages: phones, desktops, tablets and crawlers, on several landing pages; the
	// events that lead to an order carry the buyer's browser.
	var agents []string
	var paths, checkouts, browserCheckouts uint64
	if err := st.ch.QueryRow(ctx, `SELECT groupUniqArray(user_agent), uniqExact(path(page_url)),
		countIf(name = 'InitiateCheckout'), countIf(name = 'InitiateCheckout' AND user_agent LIKE 'Mozilla/5.0 (%' AND page_url != '')
		FROM events WHERE project_id = ?`, projectID).Scan(&agents, &paths, &checkouts, &browserCheckouts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"iPhone", "Android 14; SM-S918B", "iPad", "Windows NT", "Macintosh", "Firefox", "Googlebot", "bingbot"} {
		if !slices.ContainsFunc(agents, func(ua string) bool { return strings.Contains(ua, want) }) {
			t.Errorf("no %s among the User-Agents %q", want, agents)
		}
	}
	if paths < 5 || checkouts == 0 || browserCheckouts != checkouts {
		t.Errorf("%d landing paths; %d of %d checkouts from a browser's page", paths, browserCheckouts, checkouts)
	}

	// Products: 3 to 8 with prices and costs, 1 to 3 per order, worth the order's value; every
	// status a checkout reports; refunds stay on the ad that sold; unpaid sources sell too.
	var products, badLines, badValues, noCost, refundedOnAds, unpaid int64
	var statuses []string
	if err := st.pg.QueryRow(ctx, `SELECT
		(SELECT count(DISTINCT i->>'id') FROM orders, jsonb_array_elements(items) i WHERE project_id = $1),
		count(*) FILTER (WHERE jsonb_array_length(items) NOT BETWEEN 1 AND 3),
		count(*) FILTER (WHERE value <> (SELECT sum((i->>'unit_price')::bigint * (i->>'quantity')::bigint) FROM jsonb_array_elements(items) i)),
		count(*) FILTER (WHERE product_cost <= 0),
		count(*) FILTER (WHERE status = 'refunded' AND attr_ad_id <> ''),
		count(*) FILTER (WHERE attr_campaign_id = '' AND status = 'approved'),
		array_agg(DISTINCT status ORDER BY status)
		FROM orders WHERE project_id = $1`, projectID).Scan(&products, &badLines, &badValues, &noCost, &refundedOnAds, &unpaid, &statuses); err != nil {
		t.Fatal(err)
	}
	if products < 3 || products > 8 || badLines+badValues+noCost > 0 || refundedOnAds == 0 || unpaid < 100 ||
		!slices.Equal(statuses, []string{"approved", "chargeback", "failed", "pending", "refunded"}) {
		t.Errorf("%d products; orders with 0 or more than 3 lines %d, value not their lines' %d, no cost %d; refunded on ads %d; approved unattributed %d; statuses %v",
			products, badLines, badValues, noCost, refundedOnAds, unpaid, statuses)
	}

	// Returning customers: the same e-mail orders again weeks later.
	var twice, thrice int64
	var gap float64 // seconds
	if err := st.pg.QueryRow(ctx, `SELECT count(*) FILTER (WHERE k = 2), count(*) FILTER (WHERE k = 3), extract(epoch FROM min(gap))::float8
		FROM (SELECT row_number() OVER w AS k, created_at - lag(created_at) OVER w AS gap
			FROM orders WHERE project_id = $1 WINDOW w AS (PARTITION BY customer->>'email' ORDER BY created_at)) x`,
		projectID).Scan(&twice, &thrice, &gap); err != nil {
		t.Fatal(err)
	}
	if twice < 50 || thrice < 10 || gap < (7*24*time.Hour).Seconds() {
		t.Errorf("customers ordering twice %d, three times %d, closest orders %.0f s apart", twice, thrice, gap)
	}
}
