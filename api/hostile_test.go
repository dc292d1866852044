package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/valyala/fasthttp/fasthttputil"
	"golang.org/x/oauth2"

	"mtk/api"
	"mtk/api/openapi"
	"mtk/internal/auth"
	"mtk/internal/config"
	"mtk/platform"
)

// TestHostileInput walks every operation of the OpenAPI document and sends, on top of a request
// that the operation accepts (with a credential of the right scope), hostile values in every
// parameter it declares and in every member of its request body at any depth: a NUL, invalid
// UTF-8, an unpaired surrogate escape, a 1 MB string, a 100,000-element array, 10,000 levels of
// [ and of {, and dates outside what ClickHouse holds where the member is a date. Every answer
// must be a 4xx in the operation's error shape (the envelope; RFC 6749's on /oauth/token and
// /oauth/revoke; the HTML page on /oauth/authorize) and conform to the document (e.do checks
// it), and the server's heap must stay bounded.
func TestHostileInput(t *testing.T) {
	e := newEnv(t)
	e.cfg.RateLimits = config.Off // thousands of calls from one key and one IP
	e.withMetrics()               // /metrics is one of the operations
	w := newHostileWorld(t, e)
	send := e.inMemory()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Document())
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var peak uint64
	sent := 0
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for _, method := range slices.Sorted(maps.Keys(item.Operations())) {
			op := item.GetOperation(method)
			probe := w.operation(t, doc, method, path, item, op)
			for _, c := range probe.cases() {
				r := send(c.req.method, c.req.target(), c.req.body(), c.req.headers()...)
				sent++
				if problem := probe.judge(c, r); problem != "" {
					t.Errorf("%s %s, %s, %s: %s", method, path, c.member, c.kind, problem)
				}
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				peak = max(peak, m.HeapInuse)
			}
		}
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d requests in %s; heap in use %d MiB before, %d MiB at most, %d MiB after",
		sent, time.Since(start).Round(time.Second), before.HeapInuse>>20, peak>>20, after.HeapInuse>>20)
	// The walk's own requests hold a few MiB at a time; a server that copies a hostile body per
	// member, or keeps what it was sent, grows by hundreds.
	if peak > before.HeapInuse+512<<20 || after.HeapInuse > before.HeapInuse+64<<20 {
		t.Errorf("the heap grew from %d MiB to %d MiB at most and %d MiB after the walk", before.HeapInuse>>20, peak>>20, after.HeapInuse>>20)
	}
}

// inMemory is e.do over a connection to e.app's server, for the requests that app.Test does not
// send (a body over the limit) or answer (one the server refuses before reading it whole). The
// connection is in memory, so that the server closing it after such an answer never loses the
// answer, as a TCP reset can.
func (e *env) inMemory() func(method, target string, body any, headers ...string) response {
	ln := fasthttputil.NewInmemoryListener()
	go e.app.Listener(ln) //nolint:errcheck // ends with the test
	e.t.Cleanup(func() { ln.Close() })
	return func(method, target string, body any, headers ...string) response {
		e.t.Helper()
		req, raw := e.request(method, target, body, headers...)
		req.Header.Set("Content-Length", strconv.Itoa(len(raw))) // DumpRequest writes the header only
		dump, err := httputil.DumpRequest(req, true)
		if err != nil {
			e.t.Fatal(err)
		}
		conn, err := ln.Dial()
		if err != nil {
			e.t.Fatal(err)
		}
		defer conn.Close()
		go conn.Write(dump) //nolint:errcheck // the server may stop reading once it has refused the request
		resp, err := http.ReadResponse(bufio.NewReader(conn), req)
		if err != nil {
			e.t.Fatalf("%s %s: %v", method, target, err)
		}
		return e.checked(req, raw, resp)
	}
}

// hostileWorld is a tenant with one of everything an operation's path can name, and the
// credentials to call every operation.
type hostileWorld struct {
	e         *env
	tn        trackingTenant
	key       string              // every scope
	objects   platform.Connection // an ad network connection with an API base URL
	trigger   platform.Trigger
	doomed    platform.Trigger // deleted by deleteTrigger's accepted request
	grant     string           // revoked by revokeOAuthGrant's accepted request
	slug      string
	client    platform.OAuthClient
	flow      *oauthFlow // the consent page's cookie and form token
	verifier  string
	challenge string
}

func newHostileWorld(t *testing.T, e *env) *hostileWorld {
	ctx := context.Background()
	w := &hostileWorld{e: e, tn: e.newTrackingTenant("acme", "act_111", "acme.example")}
	w.key = e.key(w.tn.ws.ID, nil, auth.AllScopes...)
	var err error
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	w.objects, err = e.store.Connections.CreateConnection(ctx, platform.ConnectionInput{ProjectID: w.tn.project.ID, Kind: platform.KindAlpha,
		Name: "Objects", SourceID: "act_222", APIBaseURL: "http://127.0.0.1:9/", AccessToken: "token"})
	must(err)
	apiTrigger := platform.TriggerInput{Name: "Checkout", Config: platform.TriggerConfig{Trigger: platform.TriggerRule{Type: "api"},
		Name: "checkout", Alpha: platform.AlphaEvent{Name: "InitiateCheckout"}}}
	w.trigger, err = e.store.Containers.CreateTrigger(ctx, w.tn.ws.ID, w.tn.v3.ID, apiTrigger)
	must(err)
	w.doomed, err = e.store.Containers.CreateTrigger(ctx, w.tn.ws.ID, w.tn.v3.ID, apiTrigger)
	must(err)
	link, err := e.store.Links.CreateLink(ctx, w.tn.ws.ID, e.cfg.BaseURL, platform.LinkInput{Name: "Bio", Phone: "5511912345678", Message: "Hi"})
	must(err)
	w.slug = link.Slug
	w.client = e.newClient(false, auth.ScopeDataRead)
	f := e.startFlow(w.client, nil)
	grantKey := e.do("POST", api.PathToken, url.Values{"grant_type": {"authorization_code"}, "code": {f.code(w.tn.tenant)},
		"redirect_uri": {platformCallback}, "client_id": {w.client.ID}, "code_verifier": {f.verifier}}.Encode(),
		"Content-Type", "application/x-www-form-urlencoded")
	if grantKey.Status != 200 {
		t.Fatalf("token: %d %s", grantKey.Status, grantKey.Body)
	}
	grants := e.do("GET", "/v3/oauth/grants", nil, append(bearer(e.login(w.tn.tenant)), api.HeaderWorkspace, w.tn.ws.ID)...).List(t)
	w.grant = grants[0]["id"].(string)
	w.flow = e.startFlow(w.client, nil)
	w.flow.open()
	w.verifier = oauth2.GenerateVerifier()
	w.challenge = oauth2.S256ChallengeFromVerifier(w.verifier)
	return w
}

// code issues an authorization code that w.verifier redeems, as the consent page does.
func (w *hostileWorld) code(t *testing.T) string {
	code, err := w.e.store.OAuth.IssueCode(context.Background(), platform.CodeGrant{ClientID: w.client.ID, WorkspaceID: w.tn.ws.ID,
		UserID: w.tn.user.ID, RedirectURI: platformCallback, Scopes: []string{auth.ScopeDataRead}, Challenge: w.challenge})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// hostileRequest is a request of the walk, in parts that a case changes one at a time.
type hostileRequest struct {
	method, path string            // path: the document's template
	params       map[string]string // path parameters, escaped
	query        url.Values
	header       map[string]string
	json         any        // the JSON body (maps, slices, scalars), or nil
	form         url.Values // the form body, or nil
	raw          string     // when set, the body as sent (a case's JSON with its hostile value)
}

func (r hostileRequest) clone() hostileRequest {
	c := r
	c.params, c.header = maps.Clone(r.params), maps.Clone(r.header)
	c.query, c.form = cloneValues(r.query), cloneValues(r.form)
	c.json = deepCopy(r.json)
	return c
}

func (r hostileRequest) target() string {
	p := r.path
	for name, v := range r.params {
		p = strings.ReplaceAll(p, "{"+name+"}", v)
	}
	if len(r.query) > 0 {
		p += "?" + r.query.Encode()
	}
	return p
}

func (r hostileRequest) body() any {
	switch {
	case r.raw != "":
		return r.raw
	case r.form != nil:
		return r.form.Encode()
	case r.json != nil:
		return r.json
	}
	return nil
}

func (r hostileRequest) headers() []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(r.header)) {
		out = append(out, name, r.header[name])
	}
	if r.form != nil {
		out = append(out, "Content-Type", "application/x-www-form-urlencoded")
	}
	return out
}

// hostileCase is one hostile value in one place of an operation's accepted request.
type hostileCase struct {
	member, kind string // where, and what
	req          hostileRequest
	accepted     bool // the request as the operation accepts it, which must not be an error
}

// probe is one operation's accepted request and the places its hostile values go.
type probe struct {
	t       *testing.T
	style   api.ErrorStyle
	base    hostileRequest
	refresh func(*hostileRequest) // makes a part of the request that may be used once (an OAuth code)
	params  []*openapi3.Parameter
	members []member
}

// member is a place in a request body: its path and schema.
type member struct {
	path   []any // member names and array indexes
	schema *openapi3.Schema
}

func (m member) String() string {
	var b strings.Builder
	for _, p := range m.path {
		switch p := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", p)
		case string:
			if b.Len() > 0 {
				b.WriteString(".")
			}
			b.WriteString(p)
		}
	}
	return b.String()
}

// The sizes of the hostile arrays and nestings (a string is 1 MiB: over the body limit in a body,
// over the header limit elsewhere).
const (
	hugeArray = 100_000
	deepNest  = 10_000
)

// outOfRange are the instants outside 1970-01-01..2105-12-31 (ClickHouse's DateTime), as dates.
var outOfRange = []string{"0001-01-01", "1969-12-31", "2106-01-01", "9999-12-31"}

// dateMembers are the body members that hold a date or an instant without saying so in a
// format: the query's periods and the event's Unix timestamp.
var dateMembers = map[string]bool{"time.start": true, "time.end": true, "time.compare.start": true,
	"time.compare.end": true, "timestamp": true}

// cases lists the operation's accepted request, then a case per hostile value and place.
func (p *probe) cases() []hostileCase {
	out := []hostileCase{{member: "-", kind: "accepted request", req: p.fresh(p.base), accepted: true}}
	add := func(member, kind string, change func(*hostileRequest)) {
		r := p.fresh(p.base)
		change(&r)
		out = append(out, hostileCase{member: member, kind: kind, req: r})
	}
	mib := strings.Repeat("a", 1<<20)
	for _, par := range p.params {
		name := par.Name
		switch par.In {
		case openapi3.ParameterInPath:
			add(name, "NUL", func(r *hostileRequest) { r.params[name] = "a%00b" })
			add(name, "invalid UTF-8", func(r *hostileRequest) { r.params[name] = "a%FF%FEb" })
			add(name, "1 MiB string", func(r *hostileRequest) { r.params[name] = mib })
		case openapi3.ParameterInQuery:
			add(name, "NUL", func(r *hostileRequest) { r.query.Set(name, "a\x00b") })
			add(name, "invalid UTF-8", func(r *hostileRequest) { r.query.Set(name, "a\xff\xfeb") })
			add(name, "1 MiB string", func(r *hostileRequest) { r.query.Set(name, mib) })
		case openapi3.ParameterInHeader:
			add(name, "NUL", func(r *hostileRequest) { r.header[name] = "a\x00b" })
			add(name, "invalid UTF-8", func(r *hostileRequest) { r.header[name] = "a\xff\xfeb" })
			add(name, "1 MiB string", func(r *hostileRequest) { r.header[name] = mib })
		}
	}
	for _, m := range p.members {
		m := m
		name := m.String()
		if p.base.form != nil {
			add(name, "NUL", func(r *hostileRequest) { r.form.Set(name, "a\x00b") })
			add(name, "invalid UTF-8", func(r *hostileRequest) { r.form.Set(name, "a\xff\xfeb") })
			add(name, "1 MiB string", func(r *hostileRequest) { r.form.Set(name, mib) })
			continue
		}
		raw := func(r *hostileRequest, value string) { r.raw = withRaw(p.t, r.json, m.path, value) }
		switch s := m.schema; {
		case isString(s):
			add(name, "NUL", func(r *hostileRequest) { raw(r, `"a\u0000b"`) })
			add(name, "invalid UTF-8", func(r *hostileRequest) { raw(r, "\"a\xff\xfeb\"") })
			add(name, "unpaired surrogate", func(r *hostileRequest) { raw(r, `"a\ud800b"`) })
			add(name, "1 MiB string", func(r *hostileRequest) { raw(r, `"`+mib+`"`) })
			add(name, "huge array", func(r *hostileRequest) { raw(r, repeatJSON(`"x"`, hugeArray)) })
			if dateMembers[name] || s.Format == "date" || s.Format == "date-time" {
				for _, d := range outOfRange {
					if s.Format == "date-time" {
						d += "T00:00:00Z"
					}
					add(name, "date "+d, func(r *hostileRequest) { raw(r, strconv.Quote(d)) })
				}
			}
		case s.Type.Is("array"):
			elem := smallest(s.Items.Value, lookup(p.base.json, m.path))
			add(name, "huge array", func(r *hostileRequest) { raw(r, repeatJSON(elem, hugeArray)) })
		case dateMembers[name]: // Unix seconds
			for _, d := range outOfRange {
				ts, _ := time.Parse(time.DateOnly, d)
				add(name, "date "+d, func(r *hostileRequest) { raw(r, strconv.FormatInt(ts.Unix(), 10)) })
			}
		}
		add(name, "10,000 levels of [", func(r *hostileRequest) {
			raw(r, strings.Repeat("[", deepNest)+strings.Repeat("]", deepNest))
		})
		add(name, "10,000 levels of {", func(r *hostileRequest) {
			raw(r, strings.Repeat(`{"a":`, deepNest)+"1"+strings.Repeat("}", deepNest))
		})
	}
	return out
}

// fresh is a copy of r with its single-use parts made anew.
func (p *probe) fresh(r hostileRequest) hostileRequest {
	c := r.clone()
	if p.refresh != nil {
		p.refresh(&c)
	}
	return c
}

// judge says what is wrong with the answer to c, or "".
func (p *probe) judge(c hostileCase, r response) string {
	switch {
	case c.accepted && r.Status >= 400:
		return fmt.Sprintf("the accepted request is refused: %d %.300s", r.Status, r.Body)
	case c.accepted:
		return ""
	case c.member == "X-Request-Id" && r.Status < 500:
		// Never refused: an id that is not a sane token is replaced (CONTRACT, Errors).
		if rid := r.Header.Get("X-Request-Id"); !strings.HasPrefix(rid, "req_") {
			return fmt.Sprintf("X-Request-Id %q was echoed", rid)
		}
		return ""
	case r.Status < 400 || r.Status >= 500:
		return fmt.Sprintf("%d, want a 4xx: %.300s", r.Status, r.Body)
	}
	style := p.style
	if r.Status == 413 || r.Status == 431 { // refused before the route: always the envelope
		style = api.StyleEnvelope
	}
	switch style {
	case api.StyleOAuth:
		var b map[string]any
		if json.Unmarshal(r.Body, &b) != nil || b["error"] == nil || b["error_description"] == nil || b["request_id"] != r.Header.Get("X-Request-Id") {
			return fmt.Sprintf("not RFC 6749's error body: %.300s", r.Body)
		}
	case api.StylePage:
		if !strings.Contains(r.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(r.Body), `data-step="error"`) {
			return fmt.Sprintf("not the error page: %.300s", r.Body)
		}
	default:
		var env struct {
			Error struct {
				Type, Code, Message string
				RequestID           string `json:"request_id"`
			} `json:"error"`
		}
		if json.Unmarshal(r.Body, &env) != nil || env.Error.Type == "" || env.Error.Code == "" || env.Error.Message == "" ||
			env.Error.RequestID != r.Header.Get("X-Request-Id") {
			if p.style == api.StyleLegacy && (r.Status == 401 || r.Status == 403) {
				return ""
			}
			return fmt.Sprintf("%d not in the envelope: %.300s", r.Status, r.Body)
		}
	}
	return ""
}

// operation is the probe of one operation: its accepted request, built from the document's
// example and the world's ids, and the places of its hostile values.
func (w *hostileWorld) operation(t *testing.T, doc *openapi3.T, method, path string, item *openapi3.PathItem, op *openapi3.Operation) *probe {
	p := &probe{t: t, base: hostileRequest{method: method, path: path, params: map[string]string{},
		query: url.Values{}, header: map[string]string{}}}
	p.style = api.EndpointStyles[[2]string{method, path}]
	if op.OperationID == "listProjects" || op.OperationID == "listConnections" {
		p.style = api.StyleLegacy
	}
	for _, ref := range append(slices.Clone(item.Parameters), op.Parameters...) {
		par := ref.Value
		p.params = append(p.params, par)
		if v, ok := w.paramValue(op.OperationID, par); ok {
			switch par.In {
			case openapi3.ParameterInPath:
				p.base.params[par.Name] = url.PathEscape(v)
			case openapi3.ParameterInQuery:
				p.base.query.Set(par.Name, v)
			case openapi3.ParameterInHeader:
				p.base.header[par.Name] = v
			}
		}
	}
	w.credential(doc, op, p)
	if op.RequestBody != nil {
		for ct, media := range op.RequestBody.Value.Content {
			example := exampleOf(media, map[string]string{"query": "daily", "trackEvent": "public"}[op.OperationID])
			if ct == "application/x-www-form-urlencoded" {
				p.base.form = url.Values{}
				for k, v := range example.(map[string]any) {
					p.base.form.Set(k, fmt.Sprint(v))
				}
			} else {
				p.base.json = example
			}
			walkSchema(media.Schema.Value, nil, 0, func(m member) { p.members = append(p.members, m) })
		}
	}
	w.adjust(t, op.OperationID, p)
	return p
}

// paramValue is the accepted value of a parameter, when the accepted request sends it.
func (w *hostileWorld) paramValue(op string, par *openapi3.Parameter) (string, bool) {
	switch par.Name {
	case "project_id":
		return w.tn.project.ID, true
	case "connection_id":
		if op == "updateObjects" {
			return w.objects.ID, true
		}
		return w.tn.alpha.ID, true
	case "container_id":
		return w.tn.v3.ID, true
	case "trigger_id":
		if op == "deleteTrigger" {
			return w.doomed.ID, true
		}
		return w.trigger.ID, true
	case "grant_id":
		return w.grant, true
	case "slug":
		return w.slug, true
	case "file":
		return "app.js", true
	case "script":
		return *w.tn.v3.TrackingCode + ".js", true
	case "Origin":
		return "https://acme.example", true
	case "X-Workspace-Id":
		return w.tn.ws.ID, par.Required
	case "source":
		return "alpha_ads", true
	}
	if op == "oauthAuthorize" || op == "oauthAuthorizeForm" {
		if v := w.flow.query.Get(par.Name); v != "" {
			return v, true
		}
	}
	return "", false
}

// credential adds what the operation's first security requirement asks for, and makes the
// places it is sent in places of hostile values too.
func (w *hostileWorld) credential(doc *openapi3.T, op *openapi3.Operation, p *probe) {
	reqs := doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	if len(reqs) == 0 {
		return
	}
	r := &p.base
	for _, scheme := range slices.Sorted(maps.Keys(reqs[0])) {
		in, name := openapi3.ParameterInHeader, "Authorization"
		switch scheme {
		case "apiKey":
			r.header[name] = "Bearer " + w.key
		case "apiKeyHeader":
			name = api.HeaderAPIKey
			r.header[name] = w.key
		case "jwt": // a token of the operation's own, which it may revoke
			r.header[name] = "Bearer " + w.e.login(w.tn.tenant)
		case "workspace":
			name = api.HeaderWorkspace
			r.header[name] = w.tn.ws.ID
		case "webhookKey":
			in, name = openapi3.ParameterInQuery, "k"
			r.query.Set(name, w.tn.custom.WebhookKey)
		}
		if !slices.ContainsFunc(p.params, func(par *openapi3.Parameter) bool { return par.In == in && par.Name == name }) {
			p.params = append(p.params, &openapi3.Parameter{In: in, Name: name})
		}
	}
}

// adjust makes the document's example a request that the world accepts.
func (w *hostileWorld) adjust(t *testing.T, op string, p *probe) {
	set := func(path []any, v any) { setMember(p.base.json, path, v) }
	switch op {
	case "login":
		set([]any{"email"}, w.tn.user.Email)
		set([]any{"password"}, w.tn.password)
	case "query", "explainQuery":
		set([]any{"project_id"}, w.tn.project.ID)
		// Both periods as dates, so that a hostile date in any of them is the request's one fault.
		set([]any{"time"}, map[string]any{"start": "2026-02-24", "end": "2026-03-09", "granularity": "day",
			"compare": map[string]any{"start": "2026-02-10", "end": "2026-02-23"}})
	case "trackEvent", "trackPublicEventV2":
		set([]any{"domain"}, "acme.example")
		set([]any{"page", "url"}, "https://acme.example/")
	case "oauthAuthorizeForm":
		p.base.query = cloneValues(w.flow.query)
		p.base.header["Cookie"] = api.CSRFCookie + "=" + w.flow.cookie
		p.base.form = url.Values{"csrf_token": {w.flow.csrf}, "action": {"signin"}, "email": {w.tn.user.Email}, "password": {w.tn.password}}
	case "oauthToken":
		p.base.form = url.Values{"grant_type": {"authorization_code"}, "redirect_uri": {platformCallback},
			"code_verifier": {w.verifier}, "client_id": {w.client.ID}}
		p.refresh = func(r *hostileRequest) {
			if r.form.Get("code") == "" {
				r.form.Set("code", w.code(t))
			}
		}
	case "oauthRevoke":
		p.base.form = url.Values{"token": {"mtk_live_unknown"}, "client_id": {w.client.ID}}
	}
}

// exampleOf is the media's example: the one named, else its first.
func exampleOf(media *openapi3.MediaType, name string) any {
	if media.Example != nil {
		return deepCopy(media.Example)
	}
	if ex, ok := media.Examples[name]; ok {
		return deepCopy(ex.Value.Value)
	}
	return deepCopy(media.Examples[slices.Sorted(maps.Keys(media.Examples))[0]].Value.Value)
}

// walkSchema visits every member of s below path: properties, array items (as element 0),
// the branches of allOf, oneOf and anyOf, and a "probe" member of free-form objects.
func walkSchema(s *openapi3.Schema, path []any, depth int, visit func(member)) {
	if s == nil || depth > 8 {
		return
	}
	for _, branch := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		walkSchema(branch.Value, path, depth+1, func(m member) {
			if len(m.path) > len(path) {
				visit(m)
			}
		})
	}
	for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
		child := append(slices.Clone(path), name)
		visit(member{child, s.Properties[name].Value})
		walkSchema(s.Properties[name].Value, child, depth+1, visit)
	}
	if s.Items != nil {
		child := append(slices.Clone(path), 0)
		visit(member{child, s.Items.Value})
		walkSchema(s.Items.Value, child, depth+1, visit)
	}
	if s.Type.Is("object") && len(s.Properties) == 0 && s.AdditionalProperties.Has == nil {
		visit(member{append(slices.Clone(path), "probe"), &openapi3.Schema{Type: &openapi3.Types{"string"}}})
	} else if ap := s.AdditionalProperties.Schema; ap != nil && ap.Value != nil {
		visit(member{append(slices.Clone(path), "probe"), ap.Value})
	}
}

// isString reports whether a member holds a string (an enum of strings, or a choice of them).
func isString(s *openapi3.Schema) bool {
	if s.Type.Includes("string") {
		return true
	}
	for _, b := range slices.Concat(s.AllOf, s.OneOf, s.AnyOf) {
		if b.Value != nil && isString(b.Value) && !b.Value.Type.Is("object") {
			return true
		}
	}
	return false
}

// withRaw is the JSON of body with value, raw JSON text, at path.
func withRaw(t *testing.T, body any, path []any, value string) string {
	const mark = "\x01hostile\x01"
	body = deepCopy(body)
	if body == nil {
		body = map[string]any{}
	}
	body = setMember(body, path, mark)
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(mark)
	return strings.Replace(string(b), string(quoted), value, 1)
}

// setMember sets path in v to x, making the objects and arrays on the way, and returns v.
func setMember(v any, path []any, x any) any {
	if len(path) == 0 {
		return x
	}
	switch key := path[0].(type) {
	case string:
		m, ok := v.(map[string]any)
		if !ok {
			m = map[string]any{}
		}
		m[key] = setMember(m[key], path[1:], x)
		return m
	case int:
		a, _ := v.([]any)
		for len(a) <= key {
			a = append(a, nil)
		}
		a[key] = setMember(a[key], path[1:], x)
		return a
	}
	return v
}

// lookup is the value at path in v, or nil.
func lookup(v any, path []any) any {
	for _, p := range path {
		switch key := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[key]
		case int:
			a, _ := v.([]any)
			if key >= len(a) {
				return nil
			}
			v = a[key]
		}
	}
	return v
}

// smallest is the JSON of a small element of an array of items, so that 100,000 of them fit in
// a body: the shortest of a string enumeration, "x" for other strings, else the array's first.
func smallest(items *openapi3.Schema, v any) string {
	switch {
	case len(items.Enum) > 0:
		short := fmt.Sprint(items.Enum[0])
		for _, e := range items.Enum {
			if s := fmt.Sprint(e); len(s) < len(short) {
				short = s
			}
		}
		return strconv.Quote(short)
	case isString(items):
		return `"x"`
	}
	if a, ok := v.([]any); ok && len(a) > 0 {
		b, _ := json.Marshal(a[0])
		return string(b)
	}
	return "{}"
}

// repeatJSON is a JSON array of n copies of elem.
func repeatJSON(elem string, n int) string {
	return "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
}

func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

func cloneValues(v url.Values) url.Values {
	if v == nil {
		return nil
	}
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}
