package conform

import (
	"net/http"
	"strings"
	"testing"
)

// exchange is a request and a crafted answer.
type exchange struct {
	method, target string
	reqHeader      http.Header
	reqBody        string
	status         int
	respHeader     http.Header
	respBody       string
}

// jsonAnswer is the headers of a JSON answer with a request id.
func jsonAnswer(extra ...string) http.Header {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"req_1"}}
	for i := 0; i+1 < len(extra); i += 2 {
		h.Set(extra[i], extra[i+1])
	}
	return h
}

// TestCheck: a conforming exchange has no problem, and each kind of drift is reported with the
// exchange it was found in.
func TestCheck(t *testing.T) {
	healthz := exchange{method: "GET", target: "/healthz", status: 200, respHeader: jsonAnswer(), respBody: `{"status":"ok"}`}
	key := http.Header{"Authorization": {"Bearer mtk_live_0123456789"}}
	projects := exchange{method: "GET", target: "/v3/projects", reqHeader: key, status: 200,
		respHeader: jsonAnswer("X-RateLimit-Limit", "120", "X-RateLimit-Remaining", "119", "X-RateLimit-Reset", "60"),
		respBody:   `[]`}
	for _, tc := range []struct {
		name string
		ex   exchange
		want string // a problem contains it; "" wants none
	}{
		{"conforming", healthz, ""},
		{"inexact path answered", with(healthz, func(e *exchange) { e.target = "/HEALTHZ/" }), "no documented operation"},
		{"inexact path refused", with(healthz, func(e *exchange) {
			e.target, e.status = "/healthz/", 404
			e.respBody = `{"error":{"type":"not_found_error","code":"resource_not_found","message":"No such route.","details":null,"request_id":"req_1"}}`
		}), ""},
		{"API key in x-api-key", with(projects, func(e *exchange) {
			e.reqHeader = http.Header{"X-Api-Key": {"mtk_live_0123456789"}}
		}), ""},
		{"undocumented status", with(healthz, func(e *exchange) { e.status = 418 }), "→ 418: status is not supported"},
		{"body breaking its schema", with(healthz, func(e *exchange) { e.respBody = `{"status":"down"}` }), "value must be 'ok'"},
		{"unknown property", with(healthz, func(e *exchange) { e.respBody = `{"status":"ok","x":1}` }), "additional properties 'x'"},
		{"missing required header", with(healthz, func(e *exchange) { e.respHeader.Del("X-Request-Id") }), `header "X-Request-Id" missing`},
		{"undocumented header", with(healthz, func(e *exchange) { e.respHeader.Set("Retry-After", "1") }),
			"header Retry-After is not documented"},
		{"accepted without credential", with(projects, func(e *exchange) { e.reqHeader = nil }),
			"the document refuses the request, yet the server accepted it"},
		{"refused without credential", with(projects, func(e *exchange) {
			e.reqHeader, e.status, e.respHeader = nil, 401, jsonAnswer("WWW-Authenticate", `Bearer realm="mtk"`)
			e.respBody = `{"error":"unauthorized","message":"no key"}`
		}), ""},
		{"unknown route answered", exchange{method: "GET", target: "/v3/nothing", status: 200,
			respHeader: jsonAnswer(), respBody: `{}`}, "no documented operation"},
		{"unknown route without the envelope", exchange{method: "GET", target: "/v3/nothing", status: 404,
			respHeader: jsonAnswer(), respBody: `Not Found`}, "not the error envelope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load()
			if err != nil {
				t.Fatal(err)
			}
			problems := check(c, tc.ex)
			if tc.want == "" {
				if len(problems) > 0 {
					t.Fatalf("problems in a conforming exchange:\n%s", strings.Join(problems, "\n"))
				}
				return
			}
			for _, p := range problems {
				if strings.HasPrefix(p, "OpenAPI: "+tc.ex.method+" "+tc.ex.target) && strings.Contains(p, tc.want) {
					return
				}
			}
			t.Fatalf("no problem containing %q; got %q", tc.want, problems)
		})
	}
}

// TestIgnore: a route the caller registered outside the document is passed over, and only that one.
func TestIgnore(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	c.Ignore = func(method, path string) bool { return method == "GET" && path == "/own" }
	own := exchange{method: "GET", target: "/own?x=1", status: 200, respBody: "anything"}
	if problems := check(c, own); len(problems) > 0 {
		t.Errorf("an ignored route was checked: %q", problems)
	}
	if problems := check(c, with(own, func(e *exchange) { e.method = "POST" })); len(problems) == 0 {
		t.Error("POST /own is not ignored, yet nothing was reported")
	}
	if other, _ := Load(); other.Ignore != nil {
		t.Error("a Checker's Ignore leaked into the next Load")
	}
}

func with(e exchange, change func(*exchange)) exchange {
	e.respHeader = e.respHeader.Clone()
	e.reqHeader = e.reqHeader.Clone()
	change(&e)
	return e
}

func check(c *Checker, e exchange) []string {
	return c.Check(e.method, e.target, e.reqHeader, []byte(e.reqBody), e.status, e.respHeader, []byte(e.respBody))
}
