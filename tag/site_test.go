package tag_test

import (
	"context"
	"fmt"
	"io"
	stdlog "log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"mtk/api"
	apifixture "mtk/internal/apitest/fixture"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/internal/testenv"
	"mtk/internal/wire"
	"mtk/platform"
	"mtk/tag"
)

// site is a shop served by the test (shop.localhost and consent.localhost, which Chromium
// resolves to the loopback) whose pages load the tag from the mtk server, behind a proxy that
// counts the event posts and can answer them 503.
type site struct {
	t       testing.TB
	sys     *wire.System
	mtk     string // the proxy's origin, as the pages name the mtk server
	shop    string // http://shop.localhost:port
	consent string // http://consent.localhost:port, whose container requires consent
	project platform.Project
	proxy   *faultProxy
	// containers are the containers' ids by domain; codes their tracking codes.
	containers, codes map[string]string
}

// faultProxy passes requests to the mtk server, answering the next fail event posts 503.
type faultProxy struct {
	next  http.Handler
	mu    sync.Mutex
	fail  int
	posts map[string]int // event posts by origin host, answered or not
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == "POST" && r.URL.Path == "/v3/tracking/events" {
		p.mu.Lock()
		p.posts[r.Header.Get("Origin")]++
		fail := p.fail > 0
		if fail {
			p.fail--
		}
		p.mu.Unlock()
		if fail {
			w.Header().Set("Access-Control-Allow-Origin", r.Header.Get("Origin"))
			http.Error(w, `{"error":{"type":"api_error","code":"service_unavailable"}}`, http.StatusServiceUnavailable)
			return
		}
	}
	p.next.ServeHTTP(w, r)
}

// failNext makes the next n event posts fail with 503.
func (p *faultProxy) failNext(n int) {
	p.mu.Lock()
	p.fail = n
	p.mu.Unlock()
}

// answered503 checks that the 503s failNext asked for were all answered.
func (p *faultProxy) answered503(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.fail != 0 {
		t.Fatalf("%d event posts were to be answered 503 and were not sent", p.fail)
	}
}

// postsFrom is how many event posts came from origin.
func (p *faultProxy) postsFrom(origin string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.posts[origin]
}

// page is the shop's one page template: a buy button, a hover card, a sign-up form, a video and
// a banner below a long spacer. Its CSP allows scripts and connections to the mtk origin only,
// and page.js (the shop's own script) records CSP violations.
const page = `<!doctype html><html><head><meta charset="utf-8"><title>%s</title>
<script src="/page.js"></script><script async src="%s"></script></head>
<body><h1>%s</h1><a id="next" href="/long">next</a>
<button id="buy">Buy</button> <button id="other">Other</button>
<div class="card" style="width:200px;height:60px;background:#eee">card</div>
<form id="signup" method="post" action="/thanks"><input name="email" type="email"><input name="whatsapp" type="tel">
<button id="send" type="submit">Send</button></form>
<video id="promo" muted width="160" height="90"></video>
<div style="height:3000px"></div><div class="banner" style="height:200px;background:#ccc">banner</div></body></html>`

// pageJS records CSP violations for the test (window.cspViolations).
const pageJS = `window.cspViolations = [];
document.addEventListener('securitypolicyviolation', function (e) { window.cspViolations.push(e.violatedDirective + ' ' + e.blockedURI); });`

// newSite starts mtk (PostgreSQL and ClickHouse of the test's own), the proxy and the shop, with
// a v3 container for shop.localhost and one requiring consent for consent.localhost.
func newSite(t testing.TB) *site {
	t.Helper()
	ctx := context.Background()
	pg, ch := testenv.Postgres(t), testenv.ClickHouse(t)
	log := slog.New(slog.NewJSONHandler(io.Discard, nil))
	s := &site{t: t}
	sys, err := wire.Build(config.Config{ClickHouseURL: ch.URL, PostgresURL: pg.URL, JWTSecret: "tag-test-secret-0123456789abcdef0123",
		BaseURL: "http://127.0.0.1", RateLimits: config.On}, pg.Pool, ch.Conn, wire.Options{Clock: clock.Real{}, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	s.sys = sys
	t.Cleanup(s.sys.Close)
	app := api.New(s.sys.API())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln) //nolint:errcheck // ends with Shutdown
	t.Cleanup(func() { _ = app.Shutdown() })
	target, _ := url.Parse("http://" + ln.Addr().String())
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ErrorLog = stdlog.New(io.Discard, "", 0) // a tab closed mid-request is not news
	s.proxy = &faultProxy{next: rp, posts: map[string]int{}}
	px := httptest.NewServer(s.proxy)
	t.Cleanup(px.Close)
	s.mtk = px.URL

	store := s.sys.Store
	ws, err := store.Workspaces.CreateWorkspace(ctx, "Tag Co", platform.TierGrowth)
	if err != nil {
		t.Fatal(err)
	}
	if s.project, err = store.Projects.CreateProject(ctx, platform.ProjectInput{WorkspaceID: ws.ID, Name: "Shop", Currency: "BRL", Timezone: "UTC"}); err != nil {
		t.Fatal(err)
	}
	codes := map[string]string{}
	s.containers, s.codes = map[string]string{}, codes
	for _, c := range []platform.ContainerInput{{Domain: "shop.localhost"}, {Domain: "consent.localhost", RequireConsent: true}} {
		c.ProjectID = s.project.ID
		ctr, err := store.Containers.CreateContainer(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		codes[c.Domain] = *ctr.TrackingCode
		s.containers[c.Domain] = ctr.ID
		if c.Domain == "shop.localhost" {
			for _, tr := range shopTriggers {
				if _, err := store.Containers.AddPlatformTrigger(ctx, ctr.ID, tr); err != nil {
					t.Fatal(err)
				}
			}
		} else if _, err := store.Containers.AddPlatformTrigger(ctx, ctr.ID, trigger("click_buy", platform.TriggerRule{
			Type: platform.TriggerElementClick, Selector: "#buy", Fire: platform.FireEveryTime})); err != nil {
			t.Fatal(err)
		}
	}

	csp := fmt.Sprintf("default-src 'none'; script-src 'self' %[1]s; connect-src %[1]s; style-src 'unsafe-inline'; media-src 'self' blob:; form-action 'self'", s.mtk)
	shop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", csp)
		if r.URL.Path == "/page.js" {
			w.Header().Set("Content-Type", "text/javascript")
			io.WriteString(w, pageJS) //nolint:errcheck // a test page
			return
		}
		if r.URL.Path == "/favicon.ico" {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		host, _, _ := strings.Cut(r.Host, ":")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		src := s.mtk + tag.Path(codes[host])
		if r.URL.Query().Has("notag") { // the baseline of the cost benchmark: page.js again, no tag
			src = "/page.js"
		}
		fmt.Fprintf(w, page, "Page "+r.URL.Path, src, r.URL.Path)
	}))
	t.Cleanup(shop.Close)
	port := shop.URL[strings.LastIndex(shop.URL, ":"):]
	s.shop, s.consent = "http://shop.localhost"+port, "http://consent.localhost"+port
	return s
}

// drain applies the event outbox to ClickHouse, as a worker does.
func (s *site) drain() { apifixture.Drain(s.t, s.sys) }

// trigger is a trigger named (and whose event is named) name, sent to the first network as a
// custom event.
func trigger(name string, rule platform.TriggerRule) platform.TriggerInput {
	return platform.TriggerInput{Name: name, Config: platform.TriggerConfig{Trigger: rule, Name: name,
		Alpha: platform.AlphaEvent{Name: name, TrackCustom: true}}}
}

func cond(variable, operator, value string) platform.Condition {
	return platform.Condition{Variable: variable, Operator: operator, Value: value}
}

// shopTriggers are the shop container's triggers: one or more of every client-side type, some
// that must never fire.
var shopTriggers = []platform.TriggerInput{
	trigger("pv_all", platform.TriggerRule{Type: platform.TriggerPageView}),
	trigger("pv_shop", platform.TriggerRule{Type: platform.TriggerPageView, Conditions: []platform.Condition{
		cond("page_path", "startsWith", "/shop"), cond("utm_source", "equals", "alpha")}}),
	trigger("pv_product", platform.TriggerRule{Type: platform.TriggerPageView, Conditions: []platform.Condition{
		cond("page_url", "matches", `(?i)/PRODUCT/\d+$`), cond("referrer", "contains", "/shop")}}),
	trigger("pv_never", platform.TriggerRule{Type: platform.TriggerPageView, Conditions: []platform.Condition{
		cond("page_hostname", "equals", "other.example")}}),
	trigger("dur_2", platform.TriggerRule{Type: platform.TriggerPageViewDuration, Seconds: 2, Conditions: []platform.Condition{
		cond("page_path", "equals", "/long")}}),
	trigger("dur_never", platform.TriggerRule{Type: platform.TriggerPageViewDuration, Seconds: 120}),
	trigger("click_buy", platform.TriggerRule{Type: platform.TriggerElementClick, Selector: "#buy", Fire: platform.FireEveryTime}),
	trigger("click_session", platform.TriggerRule{Type: platform.TriggerElementClick, Selector: "#buy", Fire: platform.FireOncePerSession}),
	trigger("click_never", platform.TriggerRule{Type: platform.TriggerElementClick, Selector: "#buy", Conditions: []platform.Condition{
		cond("page_title", "notContains", "Page")}}),
	trigger("view_banner", platform.TriggerRule{Type: platform.TriggerElementView, Selector: ".banner"}),
	trigger("hover_card", platform.TriggerRule{Type: platform.TriggerElementHover, Selector: ".card"}),
	trigger("hover_long", platform.TriggerRule{Type: platform.TriggerElementHover, Selector: "#other", Seconds: 60}),
	trigger("form", platform.TriggerRule{Type: platform.TriggerFormSubmit, Selector: "#signup"}),
	trigger("scroll_50", platform.TriggerRule{Type: platform.TriggerScrollDepth, Percent: 50}),
	trigger("scroll_never", platform.TriggerRule{Type: platform.TriggerScrollDepth, Percent: 10, Conditions: []platform.Condition{
		cond("page_path", "endsWith", "/nowhere")}}),
	trigger("video_1", platform.TriggerRule{Type: platform.TriggerVideoViewTime, Selector: "#promo", Seconds: 1}),
}

// counts are the container's events in ClickHouse by name; an event stored twice (two rows of
// one event_id) is reported as a name of its own.
func (s *site) counts(domain string) map[string]int {
	s.t.Helper()
	rows, err := s.sys.ClickHouse.Query(context.Background(), `SELECT name, count(), uniqExact(event_id) FROM events
		WHERE container_id = ? GROUP BY name ORDER BY name`, s.containers[domain])
	if err != nil {
		s.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n, distinct uint64
		if err := rows.Scan(&name, &n, &distinct); err != nil {
			s.t.Fatal(err)
		}
		out[name] = int(distinct)
		if n != distinct {
			out[name+" (stored twice)"] = int(n - distinct)
		}
	}
	if err := rows.Err(); err != nil {
		s.t.Fatal(err)
	}
	return out
}

// checkEvents checks what the shop's events carry: the page, the session's landing UTM and
// click id, one lead key for the browser, and the form's lead from the form on.
func (s *site) checkEvents(t *testing.T) {
	t.Helper()
	rows, err := s.sys.ClickHouse.Query(context.Background(), `SELECT name, page_url, utm_source, utm_campaign, lead_id,
		visitParamExtractString(body, 'lead_key'), visitParamExtractString(body, 'fbclid'), visitParamExtractString(body, 'title'), value, currency
		FROM events WHERE container_id = ? ORDER BY ts, received_at`, s.containers["shop.localhost"])
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	keys, leads := map[string]bool{}, map[string]bool{}
	for rows.Next() {
		var name, pageURL, source, campaign, lead, key, fbclid, title, currency string
		var value int64
		if err := rows.Scan(&name, &pageURL, &source, &campaign, &lead, &key, &fbclid, &title, &value, &currency); err != nil {
			t.Fatal(err)
		}
		if name == "Manual" && (value != 12990 || currency != "BRL") {
			t.Errorf("mtk.push track: value %d %s, want 12990 BRL", value, currency)
		}
		keys[key] = true
		if !strings.HasPrefix(pageURL, s.shop+"/") || source != "alpha" || campaign != "spring" || fbclid != "FB123" || !strings.HasPrefix(title, "Page /") {
			t.Errorf("%s: page %s, utm %s/%s, fbclid %q, title %q", name, pageURL, source, campaign, fbclid, title)
		}
		onThanks := strings.HasSuffix(pageURL, "/thanks")
		if (name == "form" || onThanks) != (lead != "") {
			t.Errorf("%s on %s: lead %q", name, pageURL, lead)
		}
		if lead != "" {
			leads[lead] = true
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || keys[""] {
		t.Errorf("lead keys %v, want one for the browser", keys)
	}
	if len(leads) != 1 {
		t.Errorf("leads %v, want the form's one", leads)
	}
}
