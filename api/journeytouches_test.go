package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"mtk/facts"
	"mtk/ingest/journeys"
)

// User-Agents of the touches' devices.
const (
	iphoneUA  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1"
	desktopUA = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
)

// touchRows are journeys_by_lead's touch rows of a project, one line per distinct row with its
// count: origin, id, lead, ad, then the dimensions (facts.TouchDimColumns), sorted.
func (e *env) touchRows(t *testing.T, projectID string) []string {
	t.Helper()
	rows, err := e.ch.Query(context.Background(), `SELECT origin, event_id, lead_id, ad_id, utm_source, utm_medium, utm_campaign,
			utm_content, utm_term, referrer_host, landing_path, device, count()
		FROM journeys_by_lead WHERE project_id = ? AND kind = 'touch'
		GROUP BY origin, event_id, lead_id, ad_id, utm_source, utm_medium, utm_campaign, utm_content, utm_term,
			referrer_host, landing_path, device`, projectID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		f := make([]string, 12)
		var n uint64
		dest := make([]any, 0, 13)
		for i := range f {
			dest = append(dest, &f[i])
		}
		if err := rows.Scan(append(dest, &n)...); err != nil {
			t.Fatal(err)
		}
		out = append(out, strings.Join(f, " ")+fmt.Sprintf(" ×%d", n))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// Every marketing touch of a lead is a journey touch with its traffic dimensions, through the
// real routes: an e-mail's and a WhatsApp message's UTM (no ad), an organic referrer (no UTM), an
// ad's UTM (its entity too), a tracking-link click; internal navigation (the page's or the
// container's host, www. or not), an event with neither, and a touch without a lead write none; a
// repeated event_id writes one. The dimensions are the business rows' for the same event.
func TestJourneyTouchesOfEveryChannel(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	now := e.clock.Now()
	buyer := map[string]any{"email": "buyer@x.com"}
	send := func(ua string, body map[string]any) string {
		t.Helper()
		h := bearer(a.key)
		if ua != "" {
			h = append(h, "User-Agent", ua)
		}
		r := e.event(body, h...)
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		lead, _ := r.JSON(t)["lead_id"].(string)
		return lead
	}
	pageView := func(id string, at time.Time, page map[string]any) map[string]any {
		return map[string]any{"event_id": id, "config": map[string]any{"name": "PageView"}, "source": "website",
			"timestamp": at.Unix(), "lead": buyer, "page": page}
	}
	ad := pageView("ev-ad", now.Add(-48*time.Hour), map[string]any{"url": "https://acme.example/p/1", "referrer": "https://l.facebook.com/"})
	ad["config"], ad["utm"] = map[string]any{"name": "Lead"}, attributedUTM
	lead := send(desktopUA, ad)
	mail := pageView("ev-mail", now.Add(-3*time.Hour), map[string]any{"url": "https://acme.example/sale?ref=nl"})
	mail["utm"] = map[string]string{"utm_source": "email", "utm_medium": "newsletter", "utm_campaign": "march"}
	send(iphoneUA, mail)
	send(iphoneUA, mail) // a retry: the same event
	send("", map[string]any{"event_id": "ev-wa", "config": map[string]any{"name": "Contact"}, "source": "whatsapp",
		"timestamp": now.Add(-4 * time.Hour).Unix(), "lead": buyer, "utm": map[string]string{"utm_source": "whatsapp", "utm_medium": "chat"}})
	send(desktopUA, pageView("ev-organic", now.Add(-5*time.Hour),
		map[string]any{"url": "https://acme.example/", "referrer": "https://www.google.com/search?q=acme"}))
	send(desktopUA, pageView("ev-internal", now.Add(-170*time.Minute),
		map[string]any{"url": "https://acme.example/cart", "referrer": "https://acme.example/sale?ref=nl"}))
	send(desktopUA, pageView("ev-www", now.Add(-160*time.Minute),
		map[string]any{"url": "https://www.acme.example/checkout", "referrer": "https://acme.example/cart"}))
	send("", map[string]any{"event_id": "ev-plain", "config": map[string]any{"name": "Contact"}, "lead": buyer})
	anonymous := pageView("ev-anonymous", now.Add(-time.Hour), map[string]any{"url": "https://acme.example/"})
	delete(anonymous, "lead")
	anonymous["utm"] = map[string]string{"utm_source": "email"}
	send(iphoneUA, anonymous)
	click, _ := e.click(a, map[string]string{"utm_source": "whatsapp", "utm_campaign": "bio"}, "User-Agent", iphoneUA)
	send("", map[string]any{"event_id": "ev-msg", "config": map[string]any{"name": "Contact"}, "source": "whatsapp",
		"lead": buyer, "click_id": click})
	o := order("tx-1", "approved", 4200, now)
	o["created_at"] = now.Format(time.RFC3339)
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	e.drain()

	want := []string{
		"event ev-ad " + lead + " " + adID + " alpha Broad|901 Spring Sale|900 Video 1|902  l.facebook.com /p/1 desktop ×1",
		"event ev-mail " + lead + "  email newsletter march    /sale mobile ×1",
		"event ev-organic " + lead + "       www.google.com / desktop ×1",
		"event ev-wa " + lead + "  whatsapp chat      other ×1",
		"link_click " + strconv.FormatInt(click, 10) + " " + lead + "  whatsapp  bio     mobile ×1",
	}
	slices.Sort(want)
	if got := e.touchRows(t, a.project.ID); !slices.Equal(got, want) {
		t.Fatalf("touches\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The business row of the e-mail's page view has the touch's dimensions.
	var biz string
	if err := e.ch.QueryRow(context.Background(), `SELECT concat(utm_source, ' ', utm_medium, ' ', utm_campaign, ' ', utm_content, ' ',
		utm_term, ' ', referrer_host, ' ', landing_path, ' ', device) FROM business_raw
		WHERE project_id = ? AND kind = 'event' AND utm_medium = 'newsletter'`, a.project.ID).Scan(&biz); err != nil {
		t.Fatal(err)
	}
	if biz != "email newsletter march    /sale mobile" {
		t.Errorf("the e-mail's business row: %q", biz)
	}
	r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad",
			"attribution": map[string]any{"model": "last_click"}}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["data"], `[{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_revenue":42}]`)
}

// A deployment whose journeys hold the ad touches without dimensions (journeys backfill version 1,
// before schema/clickhouse/0013) gets them from `mtk backfill journeys`: the project is visited
// again, each stored touch written once more with its dimensions on its stored entity, the other
// marketing touches written once, and nothing more on a second run or a redo. The credit worker
// then reads each touch once, with its dimensions, and credits the ads as before.
func TestJourneysBackfillAddsTouchDims(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	e.seedEntities(a)
	ctx := context.Background()
	now := e.clock.Now()
	buyer := map[string]any{"email": "buyer@x.com"}
	r := e.event(map[string]any{"event_id": "ev-ad", "config": map[string]any{"name": "Lead"}, "utm": attributedUTM, "lead": buyer,
		"timestamp": now.Add(-48 * time.Hour).Unix(), "page": map[string]any{"url": "https://acme.example/p/1"}},
		append(bearer(a.key), "User-Agent", desktopUA)...)
	lead, _ := r.JSON(t)["lead_id"].(string)
	e.event(map[string]any{"event_id": "ev-mail", "config": map[string]any{"name": "PageView"}, "lead": buyer,
		"timestamp": now.Add(-3 * time.Hour).Unix(), "utm": map[string]string{"utm_source": "email"}}, append(bearer(a.key), "User-Agent", iphoneUA)...)
	click, _ := e.click(a, attributedUTM, "User-Agent", iphoneUA)
	e.event(map[string]any{"event_id": "ev-msg", "config": map[string]any{"name": "Contact"}, "source": "whatsapp", "lead": buyer,
		"click_id": click}, bearer(a.key)...)
	o := order("tx-1", "approved", 4200, now)
	o["created_at"] = now.Format(time.RFC3339)
	if r := e.webhook(a.custom.WebhookKey, o); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// What version 1 wrote: the ad touches, without dimensions, and the project recorded done.
	blank := strings.Join(func() []string {
		var out []string
		for _, c := range facts.TouchDimColumns {
			out = append(out, c+" = ''")
		}
		return out
	}(), ", ")
	if _, err := e.store.Pool().Exec(ctx, `DELETE FROM journey_outbox WHERE kind = 'touch' AND ad_id = '';
		UPDATE journey_outbox SET `+blank+` WHERE kind = 'touch'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.Pool().Exec(ctx, "INSERT INTO journey_backfill (project_id, done_at) VALUES ($1, $2)", a.project.ID, now); err != nil {
		t.Fatal(err)
	}
	e.drain()
	ids := strconv.FormatInt(click, 10)
	credited := func() []string {
		t.Helper()
		var raw []byte
		if err := e.store.Pool().QueryRow(ctx, "SELECT journey FROM order_credits WHERE project_id = $1", a.project.ID).Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var j facts.OrderJourney
		if err := json.Unmarshal(raw, &j); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tc := range j.Touches {
			out = append(out, tc.Entity.AdID+" "+tc.Dims.UTMSource+" "+tc.Dims.Device)
		}
		return out
	}
	if got, want := credited(), []string{adID + "  ", adID + "  "}; !slices.Equal(got, want) {
		t.Fatalf("credited before the backfill: %q, want %q", got, want)
	}
	for _, redo := range []bool{false, false, true} {
		if err := journeys.Backfill(ctx, e.store.Pool(), e.ch, e.resolver, redo, now, func(journeys.Progress) {}); err != nil {
			t.Fatal(err)
		}
		e.drain()
	}
	want := []string{
		"event ev-ad " + lead + " " + adID + "         ×1",
		"event ev-ad " + lead + " " + adID + " alpha Broad|901 Spring Sale|900 Video 1|902   /p/1 desktop ×1",
		"event ev-mail " + lead + "  email       mobile ×1",
		"link_click " + ids + " " + lead + " " + adID + "         ×1",
		"link_click " + ids + " " + lead + " " + adID + " alpha Broad|901 Spring Sale|900 Video 1|902    mobile ×1",
	}
	slices.Sort(want)
	if got := e.touchRows(t, a.project.ID); !slices.Equal(got, want) {
		t.Fatalf("touches\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The stored journey holds every marketing touch (the e-mail one too, which only touches
	// "all" credits), in time order.
	if got, want := credited(), []string{adID + " alpha desktop", " email mobile", adID + " alpha mobile"}; !slices.Equal(got, want) {
		t.Fatalf("credited after the backfill: %q, want %q", got, want)
	}
	if v := e.pgCount(t, "SELECT version FROM journey_backfill WHERE project_id = $1", a.project.ID); v != journeys.BackfillVersion {
		t.Errorf("journey_backfill.version %d, want %d", v, journeys.BackfillVersion)
	}
	r = e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"tx_revenue"},
		"time": map[string]any{"start": "2026-03-01", "end": "2026-03-31"}, "metadata": map[string]any{"level": "ad",
			"attribution": map[string]any{"model": "linear"}}}, bearer(a.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	wantJSON(t, r.JSON(t)["data"], `[{"ad_id":"902","ad_name":"Video 1","source":"alpha_ads","tx_revenue":42}]`)
}
