package api_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/valyala/fasthttp/fasthttputil"

	"mtk/api"
	"mtk/internal/auth"
)

// TestTextIsChecked: a NUL or invalid UTF-8 anywhere a route reads text is 400 invalid_parameter
// naming the member, in the route's own error style; each case the issue reproduced as a 500
// has its row.
func TestTextIsChecked(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	dataKey := e.key(a.ws.ID, nil, auth.ScopeDataRead)
	hook := "/v2/tracking/generic?k=" + a.custom.WebhookKey
	order := `{"transaction":{"id":"o1","status":"approved","value":100,"created_at":"2026-03-10T12:00:00Z"}}`
	event := `{"domain":"acme.example","config":{"name":"x"}}`
	for _, tc := range []struct {
		name         string
		method, path string
		body         string
		headers      []string
		detail       string
	}{
		{"login e-mail", "POST", "/v3/auth/login", `{"email":"a\u0000@x.com","password":"p"}`, nil, "email: contains a NUL character"},
		{"query project_id", "POST", "/v3/query", `{"project_id":"\u0000","fields":["spend"]}`, bearer(dataKey), "project_id: contains a NUL character"},
		{"public event domain", "POST", "/v3/tracking/events", `{"domain":"acme\u0000.example","config":{"name":"x"}}`, nil, "domain: contains a NUL character"},
		{"public event lead", "POST", "/v3/tracking/events", `{"domain":"acme.example","config":{"name":"x"},"lead":{"email":"p\u0000@x.com"}}`, nil, "lead.email: contains a NUL character"},
		{"event properties", "POST", "/v2/public/tracking/events", `{"domain":"acme.example","config":{"name":"x"},"properties":{"a":{"b":["x","y","\ud800"]}}}`, nil,
			"properties.a.b[2]: contains an unpaired UTF-16 surrogate escape"},
		{"event utm", "POST", "/v3/tracking/events", "{\"domain\":\"acme.example\",\"config\":{\"name\":\"x\"},\"utm\":{\"utm_source\":\"\xff\"}}", nil, "utm.utm_source: is not valid UTF-8"},
		{"event User-Agent", "POST", "/v3/tracking/events", event, []string{"User-Agent", "bot\xff"}, "User-Agent: is not valid UTF-8"},
		{"order webhook key", "POST", hook + "%00", order, nil, "k: contains a NUL character"},
		{"order id", "POST", hook, `{"transaction":{"id":"o\u0000","status":"approved","value":100,"created_at":"2026-03-10T12:00:00Z"}}`, nil,
			"transaction.id: contains a NUL character"},
		{"path id", "GET", "/v3/connections/%00/sync", "", bearer(dataKey), "connection_id: contains a NUL character"},
		{"path id, raw byte", "GET", "/v3/tracking/containers/%FF", "", bearer(a.key), "container_id: is not valid UTF-8"},
		{"query parameter", "GET", "/v3/fields?source=%C0%80", "", bearer(dataKey), "source: is not valid UTF-8"},
		{"query parameter name", "GET", "/v3/fields?%00=1", "", bearer(dataKey), "\uFFFD: its name contains a NUL character"},
		{"workspace header", "GET", "/v3/projects", "", append(bearer(dataKey), "X-Workspace-Id", "ws_\xfe"), "X-Workspace-Id: is not valid UTF-8"},
		{"NUL in a header", "GET", "/v3/projects", "", append(bearer(dataKey), "X-Workspace-Id", "ws_\x00"), "X-Workspace-Id: contains a NUL character"},
		{"Accept (read by /metrics)", "GET", "/metrics", "", []string{"Accept", "application/openmetrics-text\xff"}, "Accept: is not valid UTF-8"},
		{"x-api-key", "GET", "/v3/projects", "", []string{"x-api-key", "mtk_live_\xff"}, "x-api-key: is not valid UTF-8"},
		{"Idempotency-Key", "POST", "/v3/tracking/events", event, []string{"Idempotency-Key", "k\xff"}, "Idempotency-Key: is not valid UTF-8"},
		{"If-None-Match", "POST", "/v3/query", `{"project_id":"` + a.project.ID + `","fields":["spend"]}`, append(bearer(dataKey), "If-None-Match", "\"\xff\""),
			"If-None-Match: is not valid UTF-8"},
		{"query labelled a form (curl -d)", "POST", "/v3/query", `{"project_id":"\u0000","fields":["spend"]}`,
			append(bearer(dataKey), "Content-Type", "application/x-www-form-urlencoded"), "project_id: contains a NUL character"},
		{"event labelled a form", "POST", "/v3/tracking/events", ` {"domain":"acme.example","config":{"name":"\u0000"}}`,
			[]string{"Content-Type", "application/x-www-form-urlencoded"}, "config.name: contains a NUL character"},
		{"two problems", "POST", "/v3/tracking/events?x=%FF", `{"domain":"acme.example","config":{"name":"\u0000"}}`, nil,
			"x: is not valid UTF-8\nconfig.name: contains a NUL character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do(tc.method, tc.path, bodyOrNil(tc.body), tc.headers...)
			errObj := wantError(t, r, 400, "validation_error", "invalid_parameter")
			wantJSON(t, errObj["details"], mustJSON(t, strings.Split(tc.detail, "\n")))
		})
	}
	t.Run("clean text passes", func(t *testing.T) {
		r := e.do("POST", "/v3/tracking/events", `{"domain":"acme.example","config":{"name":"x"},"lead":{"name":"Zoë \ud83d\ude00"}}`,
			"User-Agent", "Mozilla/5.0 (Zoë)")
		if r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})

	client := e.newClient(false, auth.ScopeDataRead)
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	t.Run("oauth token form", func(t *testing.T) {
		r := e.do("POST", api.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {"c\x00"}, "client_id": {client.ID}}.Encode(), form...)
		wantOAuthError(t, r, 400, "invalid_request")
		if !strings.Contains(string(r.Body), "UTF-8") {
			t.Fatalf("the description does not say why: %s", r.Body)
		}
	})
	t.Run("oauth revoke form", func(t *testing.T) {
		wantOAuthError(t, e.do("POST", api.PathRevoke, "token=%FF&client_id="+client.ID, form...), 400, "invalid_request")
	})
	// A form is a form on the form routes whatever its first byte (CONTRACT "Hostile input,
	// second pass"): a body opening with "[" or "{" was once checked as JSON, which it is not, so
	// its %00 reached PostgreSQL and failed the request with a 500.
	for _, open := range []string{"[", "{", " {"} {
		t.Run("oauth token form opening with "+open, func(t *testing.T) {
			body := url.QueryEscape(open) + "=1&" + url.Values{"grant_type": {"authorization_code"}, "code": {"c"}, "client_id": {client.ID + "\x00"}}.Encode()
			body = strings.Replace(body, url.QueryEscape(open), open, 1)
			wantOAuthError(t, e.do("POST", api.PathToken, body, form...), 400, "invalid_request")
		})
		t.Run("oauth revoke form opening with "+open, func(t *testing.T) {
			wantOAuthError(t, e.do("POST", api.PathRevoke, open+"=1&token=%FF&client_id="+client.ID, form...), 400, "invalid_request")
			wantOAuthError(t, e.do("POST", api.PathRevoke, open+"=1&token=a%00&client_id="+client.ID, form...), 400, "invalid_request")
		})
	}
	t.Run("oauth basic credentials", func(t *testing.T) {
		r := e.do("POST", api.PathToken, "grant_type=authorization_code", append(form, "Authorization", basic(client.ID, "s\x00"))...)
		wantOAuthError(t, r, 401, "invalid_client")
	})
	t.Run("oauth authorize page", func(t *testing.T) {
		for _, param := range []string{"client_id", "state"} {
			f := e.startFlow(client, func(q url.Values) { q.Set(param, "s\x00") })
			r := f.open()
			if r.Status != 400 || !strings.Contains(string(r.Body), `data-step="error"`) || !strings.Contains(r.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("%s: want the 400 error page: %d %s", param, r.Status, r.Body)
			}
		}
		f := e.startFlow(client, nil)
		f.open()
		r := f.post(url.Values{"action": {"signin"}, "email": {a.user.Email + "\xff"}, "password": {a.password}})
		if r.Status != 400 || !strings.Contains(string(r.Body), `data-step="error"`) {
			t.Fatalf("want the 400 error page for the form: %d %s", r.Status, r.Body)
		}
		for _, open := range []string{"[", "{"} {
			fields := url.Values{"action": {"signin"}, "email": {a.user.Email + "\x00"}, "password": {a.password}, "csrf_token": {f.csrf}}
			r := e.do("POST", api.PathAuthorize+"?"+f.query.Encode(), open+"=1&"+fields.Encode(),
				"Content-Type", "application/x-www-form-urlencoded", "Cookie", api.CSRFCookie+"="+f.cookie)
			if r.Status != 400 || !strings.Contains(string(r.Body), `data-step="error"`) {
				t.Fatalf("a form opening with %s: want the 400 error page: %d %s", open, r.Status, r.Body)
			}
		}
	})
}

// bodyOrNil is e.do's body for s: none when empty.
func bodyOrNil(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDetailLinesAreShort: a body of many members with long names, of the wrong type or not
// text, before any credential: 20 detail lines of at most 200 characters and one counting the
// rest (the security probe once had a 510 KB answer).
func TestDetailLinesAreShort(t *testing.T) {
	e := newEnv(t)
	e.newTrackingTenant("acme", "act_111", "acme.example")
	var wrong, nul strings.Builder
	for i := range 50 {
		sep := map[bool]string{true: "", false: ","}[i == 0]
		fmt.Fprintf(&wrong, `%s"%s%d":%d`, sep, strings.Repeat("k", 10000), i, i)
		fmt.Fprintf(&nul, `%s"%d":"%s\u0000"`, sep, i, strings.Repeat("v", 10000))
	}
	for name, body := range map[string]string{
		"wrong types": `{"domain":"acme.example","config":{"name":"x"},"cookies":{` + wrong.String() + `}}`,
		"not text":    `{"domain":"acme.example","config":{"name":"x"},"properties":{` + nul.String() + `}}`,
		"long values": `{"domain":"acme.example","config":{"name":"x"},"value":` + strings.Repeat("9", 5000) + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			r := e.do("POST", "/v3/tracking/events", body)
			errObj := wantError(t, r, 400, "validation_error", "invalid_parameter")
			details := errObj["details"].([]any)
			if len(r.Body) > 8000 || len(details) > 21 {
				t.Fatalf("an answer of %d bytes, %d details", len(r.Body), len(details))
			}
			for _, d := range details {
				if n := utf8.RuneCountInString(d.(string)); n > 200 {
					t.Fatalf("a detail line of %d characters: %.80s…", n, d)
				}
			}
			if len(details) == 21 && details[20] != "... and 30 more" {
				t.Fatalf("the last line %q", details[20])
			}
		})
	}
}

// TestTrailerTextIsChecked: a read header that arrives as a trailer of a chunked body is checked
// too (headerProblems skips the look-ups only for a header block of text with no trailers).
func TestTrailerTextIsChecked(t *testing.T) {
	e := newEnv(t)
	ln := fasthttputil.NewInmemoryListener()
	go e.app.Listener(ln) //nolint:errcheck // ends with the test
	t.Cleanup(func() { ln.Close() })
	body := `{"project_id":"p","fields":["spend"]}`
	raw := "POST /v3/query HTTP/1.1\r\nHost: mtk\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n" +
		"Trailer: X-Api-Key\r\n\r\n" + strconv.FormatInt(int64(len(body)), 16) + "\r\n" + body + "\r\n0\r\nX-Api-Key: mtk_live_\xff\r\n\r\n"
	conn, err := ln.Dial()
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	go conn.Write([]byte(raw)) //nolint:errcheck // the answer tells
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 400 || !strings.Contains(string(got), "x-api-key: is not valid UTF-8") {
		t.Fatalf("want 400 naming the trailer: %d %s", resp.StatusCode, got)
	}
}
