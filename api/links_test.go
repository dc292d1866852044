package api_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"mtk/platform/marker"
)

// follow visits a link and returns the chat URL it redirects to.
func (e *env) follow(path string, headers ...string) *url.URL {
	e.t.Helper()
	r := e.do("GET", path, nil, headers...)
	if r.Status != 302 || r.Header.Get("Cache-Control") != "no-store" {
		e.t.Fatalf("GET %s: %d %v %s", path, r.Status, r.Header, r.Body)
	}
	u, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		e.t.Fatal(err)
	}
	return u
}

func TestTrackingLinks(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	body := map[string]any{
		"name": "Promo", "phone": "+55 (11) 91234-5678", "message": "Hi! I want the promo & the 50% discount",
		"utm": map[string]any{"utm_source": "alpha", "utm_campaign": "Sale%7C123", "utm_medium": " feed "},
	}
	r := e.do("POST", "/v3/tracking/links", body, bearer(a.key)...)
	link := r.JSON(t)
	slug, _ := link["slug"].(string)
	if r.Status != 201 || len(link) != 3 || !strings.HasPrefix(link["id"].(string), "lnk_") || len(slug) != 8 ||
		link["url"] != "https://mtk.example/l/"+slug {
		t.Fatalf("%d %s", r.Status, r.Body)
	}

	t.Run("a visit records a click and opens the chat with the marker", func(t *testing.T) {
		e.clock.Advance(time.Minute)
		u := e.follow("/l/"+slug, "User-Agent", "Mozilla/5.0 test")
		if u.Scheme != "https" || u.Host != "wa.me" || u.Path != "/5511912345678" {
			t.Fatalf("redirect to %s", u)
		}
		if raw := u.RawQuery; strings.Contains(raw, "+") || !strings.Contains(raw, "Hi%21%20I%20want") {
			t.Fatalf("text is not escaped with %%20: %s", raw)
		}
		id, clean, ok := marker.Decode(u.Query().Get("text"))
		if !ok || clean != body["message"] {
			t.Fatalf("text %q: marker %v, clean %q", u.Query().Get("text"), ok, clean)
		}
		var linkID, source, medium, campaign, ua string
		var at time.Time
		if err := e.store.Pool().QueryRow(context.Background(), `SELECT link_id, utm_source, utm_medium, utm_campaign, user_agent, clicked_at
			FROM link_clicks WHERE id = $1`, int64(id)).Scan(&linkID, &source, &medium, &campaign, &ua, &at); err != nil {
			t.Fatal(err)
		}
		if linkID != link["id"] || source != "alpha" || medium != "feed" || campaign != "Sale|123" || ua != "Mozilla/5.0 test" || !at.Equal(e.clock.Now()) {
			t.Fatalf("click %s %s %s %s %s %v", linkID, source, medium, campaign, ua, at)
		}
	})
	t.Run("UTM in the visited URL overlay the link's member by member", func(t *testing.T) {
		u := e.follow("/l/" + slug + "?utm_source=beta&utm_content=Ad%7C9")
		id, _, _ := marker.Decode(u.Query().Get("text"))
		got := e.decode(a.key, u.Query().Get("text"))[0]["params"]
		wantJSON(t, got, `{"utm_campaign":"Sale|123","utm_content":"Ad|9","utm_medium":"feed","utm_source":"beta"}`)
		if id == 0 {
			t.Fatal("no click id")
		}
	})
	t.Run("unknown slug", func(t *testing.T) {
		errObj := wantError(t, e.do("GET", "/l/nope", nil), 404, "not_found_error", "resource_not_found")
		if errObj["message"] != "Tracking link not found." {
			t.Fatalf("message %v", errObj["message"])
		}
	})
	cases := []struct {
		name    string
		body    any
		code    string
		details []string
	}{
		{"empty", `{}`, "missing_parameter", []string{"name: required", "message: required", "phone: required"}},
		{"bad phone", map[string]any{"name": "x", "message": "m", "phone": "call me"}, "invalid_parameter", []string{`phone: "call me" is not an international phone number`}},
		{"short phone", map[string]any{"name": "x", "message": "m", "phone": "1234"}, "invalid_parameter", []string{"phone:"}},
		{"long message", map[string]any{"name": "x", "message": strings.Repeat("m", 1001), "phone": "5511912345678"}, "invalid_parameter", []string{"message: at most 1000 characters"}},
		{"utm not an object", map[string]any{"name": "x", "message": "m", "phone": "5511912345678", "utm": "fb"}, "invalid_parameter", []string{"utm: expected an object"}},
		{"long utm", map[string]any{"name": "x", "message": "m", "phone": "5511912345678", "utm": map[string]string{"utm_term": strings.Repeat("t", 501)}},
			"invalid_parameter", []string{"utm.utm_term: at most 500 characters"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errObj := wantError(t, e.do("POST", "/v3/tracking/links", c.body, bearer(a.key)...), 400, "validation_error", c.code)
			details := fmt.Sprint(errObj["details"])
			for _, d := range c.details {
				if !strings.Contains(details, d) {
					t.Fatalf("details %s lack %q", details, d)
				}
			}
			if len(errObj["details"].([]any)) != len(c.details) {
				t.Fatalf("details %s, want %d lines", details, len(c.details))
			}
		})
	}
}

// decode sends texts to the decode route and returns the decoded messages.
func (e *env) decode(key string, texts ...string) []map[string]any {
	e.t.Helper()
	msgs := make([]map[string]string, len(texts))
	for i, s := range texts {
		msgs[i] = map[string]string{"text": s}
	}
	r := e.do("POST", "/v3/tracking/messages/decode", map[string]any{"messages": msgs}, bearer(key)...)
	if r.Status != 200 {
		e.t.Fatalf("decode: %d %s", r.Status, r.Body)
	}
	var out []map[string]any
	for _, m := range r.JSON(e.t)["messages"].([]any) {
		out = append(out, m.(map[string]any))
	}
	return out
}

func TestDecodeMessages(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	linkBody := map[string]any{"name": "Promo", "phone": "5511912345678", "message": "Olá! Quero a promoção 🎉",
		"utm": map[string]string{"utm_source": "alpha", "utm_campaign": "Sale|123"}}
	link := e.do("POST", "/v3/tracking/links", linkBody, bearer(a.key)...).JSON(t)
	sent := e.follow("/l/" + link["slug"].(string)).Query().Get("text")
	clickID, _, _ := marker.Decode(sent)
	// The visitor types more before sending; the marker stays inside the text.
	typed := "Oi, " + sent + " pode ser hoje?"
	tampered := strings.Replace(sent, "\u200b", "\u200c", 1)
	if _, _, ok := marker.Decode(tampered); ok {
		t.Fatal("tampered marker still decodes")
	}
	bLink := e.do("POST", "/v3/tracking/links", linkBody, bearer(b.key)...).JSON(t)
	bSent := e.follow("/l/" + bLink["slug"].(string)).Query().Get("text")
	unknown := "Hi" + marker.Encode(clickID+1000)

	texts := []string{typed, "just a message", tampered, bSent, unknown, ""}
	out := e.decode(a.readOnly, texts...)
	if len(out) != len(texts) {
		t.Fatalf("%d answers for %d messages", len(out), len(texts))
	}
	tracked := out[0]
	if tracked["text"] != typed || tracked["decoded_text"] != "Oi, Olá! Quero a promoção 🎉 pode ser hoje?" ||
		tracked["decoded_id"] != float64(clickID) || tracked["tracking_link_id"] != link["id"] || tracked["selected_target"] != nil {
		t.Fatalf("tracked message %v", tracked)
	}
	wantJSON(t, tracked["params"], `{"utm_campaign":"Sale|123","utm_source":"alpha"}`)
	for i, m := range out[1:] {
		if len(m) != 6 || m["text"] != texts[i+1] || m["decoded_text"] != texts[i+1] || m["decoded_id"] != nil ||
			m["params"] != nil || m["tracking_link_id"] != nil || m["selected_target"] != nil {
			t.Fatalf("message %d should be untracked: %v", i+1, m)
		}
	}
	// The other workspace decodes its own click.
	if got := e.decode(b.key, bSent)[0]; got["tracking_link_id"] != bLink["id"] {
		t.Fatalf("bolt's own click: %v", got)
	}

	t.Run("limits and shapes", func(t *testing.T) {
		many := func(n int) map[string]any {
			msgs := make([]map[string]string, n)
			for i := range msgs {
				msgs[i] = map[string]string{"text": fmt.Sprint(i)}
			}
			return map[string]any{"messages": msgs}
		}
		if r := e.do("POST", "/v3/tracking/messages/decode", many(100), bearer(a.key)...); r.Status != 200 {
			t.Fatalf("100 messages: %d %s", r.Status, r.Body)
		}
		cases := []struct {
			name   string
			body   any
			code   string
			detail string
		}{
			{"101 messages", many(101), "invalid_parameter", "messages: 101 items; at least 1 and at most 100"},
			{"no messages", `{"messages":[]}`, "invalid_parameter", "messages: 0 items"},
			{"missing messages", `{}`, "missing_parameter", "messages: required"},
			{"messages not an array", `{"messages":"hi"}`, "invalid_parameter", "messages: expected an array"},
			{"text not a string", `{"messages":[{"text":"ok"},{"text":5}]}`, "invalid_parameter", "messages[1].text: expected a string, got number"},
			{"item not an object", `{"messages":[{"text":"ok"},"hi"]}`, "invalid_parameter", "messages[1]: expected an object with a text string"},
			{"text missing", `{"messages":[{"text":"ok"},{},null]}`, "missing_parameter", "messages[1].text: required messages[2].text: required"},
		}
		for _, c := range cases {
			errObj := wantError(t, e.do("POST", "/v3/tracking/messages/decode", c.body, bearer(a.key)...), 400, "validation_error", c.code)
			if details := strings.Trim(fmt.Sprint(errObj["details"]), "[]"); !strings.Contains(details, c.detail) {
				t.Fatalf("%s: details %s, want %q", c.name, details, c.detail)
			}
		}
	})
}

// A link's redirect counts against the client IP's public limit, shared with the order webhook:
// past it the visit is 429 in the envelope, with Retry-After, and records no click.
func TestLinkRedirectIsLimitedPerIP(t *testing.T) {
	e := newEnv(t)
	e.clock.Set(time.Date(2026, 3, 10, 15, 0, 20, 0, time.UTC))
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	link := e.do("POST", "/v3/tracking/links", map[string]any{"name": "Promo", "phone": "5511912345678", "message": "Hi"},
		bearer(a.key)...).JSON(t)
	path := "/l/" + link["slug"].(string)
	clicks := func() int {
		var n int
		if err := e.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM link_clicks WHERE link_id = $1`,
			link["id"]).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i := 1; i <= 120; i++ {
		r := e.do("GET", path, nil)
		if r.Status != 302 || r.Header.Get("X-RateLimit-Limit") != "120" || r.Header.Get("X-RateLimit-Remaining") != fmt.Sprint(120-i) {
			t.Fatalf("visit %d: %d %v", i, r.Status, r.Header)
		}
	}
	r := e.do("GET", path, nil)
	wantError(t, r, 429, "rate_limit_error", "rate_limit_exceeded")
	if r.Header.Get("Retry-After") != "40" || r.Header.Get("Location") != "" {
		t.Fatalf("refused visit: %v", r.Header)
	}
	if n := clicks(); n != 120 {
		t.Fatalf("%d clicks recorded, want 120: a refused visit wrote one", n)
	}
	order := `{"transaction":{"id":"o-1","status":"approved","value":100}}`
	wantError(t, e.do("POST", "/v2/tracking/generic?k="+a.custom.WebhookKey, order), 429, "rate_limit_error", "rate_limit_exceeded")
	e.clock.Advance(40 * time.Second)
	e.follow(path)
	if n := clicks(); n != 121 {
		t.Fatalf("%d clicks in the next window, want 121", n)
	}
}

// Click ids are random below 2^53, never a platform-wide sequence: the ids one workspace sees say
// nothing of another's clicks. Every click decodes to its own id; a click numbered by the former
// sequence still decodes.
func TestClickIDsRevealNoVolume(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	b := e.newTrackingTenant("bolt", "act_222", "bolt.example")
	body := map[string]any{"name": "Promo", "phone": "5511912345678", "message": "Hi"}
	aLink := e.do("POST", "/v3/tracking/links", body, bearer(a.key)...).JSON(t)
	bLink := e.do("POST", "/v3/tracking/links", body, bearer(b.key)...).JSON(t)
	visit := func(link map[string]any) (uint64, string) {
		text := e.follow("/l/" + link["slug"].(string)).Query().Get("text")
		id, _, ok := marker.Decode(text)
		if !ok || id == 0 || id >= 1<<53 {
			t.Fatalf("click id %d (marker %v) is not in [1, 2^53)", id, ok)
		}
		return id, text
	}
	type click struct {
		id   uint64
		text string
		key  string
	}
	var clicks []click
	for i := range 22 {
		link, key := bLink, b.key
		if i == 0 || i == 21 { // acme's two clicks around bolt's twenty
			link, key = aLink, a.key
		}
		id, text := visit(link)
		clicks = append(clicks, click{id, text, key})
	}
	ids := make([]uint64, len(clicks))
	for i, c := range clicks {
		ids[i] = c.id
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		// 22 random ids below 2^53 are this close with a probability of about 5e-8.
		if ids[i]-ids[i-1] < 1_000_000 {
			t.Fatalf("click ids %d and %d are neighbours: %v", ids[i-1], ids[i], ids)
		}
	}
	for _, c := range clicks {
		got := e.decode(c.key, c.text)[0]
		if got["decoded_id"] != float64(c.id) || got["decoded_text"] != "Hi" {
			t.Fatalf("click %d decodes to %v", c.id, got)
		}
	}

	// A click numbered by the former sequence keeps decoding; ids now come only from mtk.
	ctx := context.Background()
	if _, err := e.store.Pool().Exec(ctx, `INSERT INTO link_clicks (id, link_id, ip, user_agent, clicked_at)
		VALUES (7, $1, '', '', now())`, aLink["id"]); err != nil {
		t.Fatal(err)
	}
	if got := e.decode(a.key, "Hi"+marker.Encode(7))[0]; got["decoded_id"] != 7.0 || got["tracking_link_id"] != aLink["id"] {
		t.Fatalf("an old click: %v", got)
	}
	var def *string
	if err := e.store.Pool().QueryRow(ctx, `SELECT column_default FROM information_schema.columns
		WHERE table_name = 'link_clicks' AND column_name = 'id'`).Scan(&def); err != nil || def != nil {
		t.Fatalf("link_clicks.id default %v (%v), want none", def, err)
	}
}
