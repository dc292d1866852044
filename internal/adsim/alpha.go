package adsim

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// alpha_ads: a Graph-API-style network modelled on Meta's Marketing API. See README.md.

const alphaVersion = "v19.0"

// alphaTimeLayout is how the Graph API writes times: ISO 8601 in the account's zone.
const alphaTimeLayout = "2006-01-02T15:04:05-0700"

var alphaVersionRE = regexp.MustCompile(`^v\d+\.\d+$`)

type alphaDialect struct{}

func (alphaDialect) network() Network { return Alpha }

// token takes access_token from the query, a form body or a JSON body, else a Bearer header.
func (alphaDialect) token(r *http.Request) string {
	if t := alphaParams(r).Get("access_token"); t != "" {
		return t
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

func (alphaDialect) writeError(w http.ResponseWriter, e *apiErr, trace string) {
	status, code, sub, typ, transient := http.StatusBadRequest, 100, 0, "OAuthException", false
	msg := e.msg
	switch e.kind {
	case errAuth:
		code, sub = 190, 467
	case errNotFound:
		sub, typ = 33, "GraphMethodException"
	case errInvalid:
		msg = "(#100) " + msg
	case errRateLimit:
		status, code, sub, transient = http.StatusTooManyRequests, 17, 2446079, true
		msg = "(#17) User request limit reached. " + msg
	case errBudgetLimit:
		sub = 1885621
	case errServer:
		status, code, transient = e.status, 1, true
		if status == http.StatusServiceUnavailable {
			code = 2
		}
	case errTimeout:
		status, code, transient = http.StatusGatewayTimeout, 2, true
	}
	if e.sub != 0 {
		sub = e.sub
	}
	body := map[string]any{"message": msg, "type": typ, "code": code, "is_transient": transient, "fbtrace_id": trace}
	if sub != 0 {
		body["error_subcode"] = sub
	}
	writeJSON(w, status, map[string]any{"error": body})
}

// alphaParams merges the query, a form body and a JSON object body (values as strings; JSON
// arrays and objects as their JSON text), as the Graph API accepts all three. A JSON body is
// put back for the handler to read again.
func alphaParams(r *http.Request) url.Values {
	v := url.Values{}
	for k, vs := range r.URL.Query() {
		v[k] = vs
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return v
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		raw, _ := io.ReadAll(http.MaxBytesReader(nil, r.Body, 8<<20))
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			for k, m := range obj {
				var s string
				if json.Unmarshal(m, &s) != nil {
					s = string(m)
				}
				v.Set(k, s)
			}
		}
		return v
	}
	if err := r.ParseForm(); err == nil {
		for k, vs := range r.PostForm {
			v[k] = vs
		}
	}
	return v
}

func (s *Sim) alphaRoutes(mux *http.ServeMux) {
	d := alphaDialect{}
	mux.Handle("GET /alpha/{ver}/{node}", s.serve(d, s.alphaVersioned(s.alphaNode)))
	mux.Handle("GET /alpha/{ver}/{node}/{edge}", s.serve(d, s.alphaVersioned(s.alphaEdge)))
	mux.Handle("POST /alpha/{ver}/{node}", s.serve(d, s.alphaVersioned(s.alphaUpdate)))
	mux.Handle("POST /alpha/{ver}/{node}/events", s.serve(d, s.alphaVersioned(s.capiEvents)))
	mux.Handle("POST /alpha/{ver}/{$}", s.serve(d, s.alphaVersioned(s.alphaBatch)))
}

func (s *Sim) alphaVersioned(h netHandler) netHandler {
	return func(w http.ResponseWriter, r *http.Request, a *account, trace string) {
		if !alphaVersionRE.MatchString(r.PathValue("ver")) {
			alphaDialect{}.writeError(w, errorf(errInvalid, "Unknown path components: /%s", r.PathValue("ver")), trace)
			return
		}
		h(w, r, a, trace)
	}
}

// alphaNode answers GET /<node>: the account, one of its objects, or me.
func (s *Sim) alphaNode(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	node := r.PathValue("node")
	fields := alphaFields(r, "id")
	var out map[string]any
	var e *apiErr
	switch {
	case node == a.id:
		out, e = alphaAccountFields(a, fields)
	case node == "me":
		out = map[string]any{"id": "1000" + a.id[len(a.id)-11:], "name": "adsim user"}
	default:
		o := s.objects[node]
		if o == nil || o.acct != a {
			e = alphaMissing(node)
			break
		}
		s.mu.RLock()
		out, e = alphaObjectFields(o, fields, s.now())
		s.mu.RUnlock()
	}
	if e != nil {
		alphaDialect{}.writeError(w, e, trace)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// alphaEdge answers GET /<node>/<edge>: an account's or object's campaigns, adsets, ads or
// insights, and me/adaccounts.
func (s *Sim) alphaEdge(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	node, edge := r.PathValue("node"), r.PathValue("edge")
	d := alphaDialect{}
	if node == "me" && edge == "adaccounts" {
		out, e := alphaAccountFields(a, alphaFields(r, "id"))
		if e != nil {
			d.writeError(w, e, trace)
			return
		}
		alphaPage(w, r, []map[string]any{out}, trace)
		return
	}
	var scope *object
	if node != a.id {
		if scope = s.objects[node]; scope == nil || scope.acct != a {
			d.writeError(w, alphaMissing(node), trace)
			return
		}
	}
	if edge == "insights" && scope == nil {
		s.alphaInsights(w, r, a, trace)
		return
	}
	level := map[string]Level{"campaigns": LevelCampaign, "adsets": LevelAdSet, "ads": LevelAd}[edge]
	if level == "" || (scope != nil && levelDepth(scope.level) >= levelDepth(level)) {
		d.writeError(w, errorf(errInvalid, "Unsupported get request: edge %q of node %s", edge, node), trace)
		return
	}
	fields := alphaFields(r, "id")
	now := s.now()
	var data []map[string]any
	s.mu.RLock()
	for _, o := range a.ofLevel(level) {
		if scope != nil && o.ancestor(scope.level) != scope {
			continue
		}
		m, e := alphaObjectFields(o, fields, now)
		if e != nil {
			s.mu.RUnlock()
			d.writeError(w, e, trace)
			return
		}
		data = append(data, m)
	}
	s.mu.RUnlock()
	alphaPage(w, r, data, trace)
}

func levelDepth(l Level) int {
	return map[Level]int{LevelAccount: 0, LevelCampaign: 1, LevelAdSet: 2, LevelAd: 3}[l]
}

func alphaMissing(id string) *apiErr {
	return errorf(errNotFound, "Unsupported get request. Object with ID '%s' does not exist, cannot be loaded due to missing permissions, or does not support this operation.", id)
}

// alphaFields reads the comma-separated fields parameter, or def when it is absent.
func alphaFields(r *http.Request, def string) []string {
	f := alphaParams(r).Get("fields")
	if f == "" {
		f = def
	}
	var out []string
	for _, x := range strings.Split(f, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

func alphaAccountFields(a *account, fields []string) (map[string]any, *apiErr) {
	all := map[string]any{"id": a.id, "account_id": strings.TrimPrefix(a.id, "act_"), "name": a.name,
		"currency": a.currency, "timezone_name": a.tz, "account_status": 1}
	return pickFields(all, []string{"id", "account_id", "name", "currency", "timezone_name", "account_status"}, fields, "AdAccount")
}

// alphaObjectFields renders o's fields at now; the caller holds s.mu.
func alphaObjectFields(o *object, fields []string, now int64) (map[string]any, *apiErr) {
	a := o.acct
	all := map[string]any{"id": o.id, "name": o.title(), "account_id": strings.TrimPrefix(a.id, "act_"),
		"status": string(o.statusAt(now)), "effective_status": o.effectiveStatus(now),
		"created_time": a.localTime(o.start, alphaTimeLayout), "start_time": a.localTime(o.start, alphaTimeLayout)}
	switch o.level {
	case LevelCampaign:
		all["objective"] = o.objective
	case LevelAdSet:
		all["campaign_id"] = o.parent.id
	case LevelAd:
		all["adset_id"], all["campaign_id"] = o.parent.id, o.parent.parent.id
	}
	if o.end != 0 {
		all[map[Level]string{LevelCampaign: "stop_time", LevelAdSet: "end_time"}[o.level]] = a.localTime(o.end, alphaTimeLayout)
	}
	switch o.budget {
	case BudgetDaily:
		all["daily_budget"] = strconv.FormatInt(o.budgetAt(now), 10)
	case BudgetLifetime:
		all["lifetime_budget"] = strconv.FormatInt(o.budgetAt(now), 10)
	}
	typ := map[Level]string{LevelCampaign: "Campaign", LevelAdSet: "AdSet", LevelAd: "Ad"}[o.level]
	return pickFields(all, alphaObjectKnown[o.level], fields, typ)
}

// alphaObjectKnown lists the fields of each node type; a known field an object does not set
// (a budget held elsewhere, no end time) is left out of the answer, as the Graph API does.
var alphaObjectKnown = map[Level][]string{
	LevelCampaign: {"id", "name", "account_id", "status", "effective_status", "created_time", "start_time",
		"objective", "daily_budget", "lifetime_budget", "stop_time"},
	LevelAdSet: {"id", "name", "account_id", "status", "effective_status", "created_time", "start_time",
		"campaign_id", "daily_budget", "lifetime_budget", "end_time"},
	LevelAd: {"id", "name", "account_id", "status", "effective_status", "created_time", "start_time",
		"adset_id", "campaign_id"},
}

// pickFields keeps the asked fields of all. A field not in known is an error; a known one
// missing from all is left out.
func pickFields(all map[string]any, known, fields []string, nodeType string) (map[string]any, *apiErr) {
	out := map[string]any{}
	for _, f := range fields {
		if !slices.Contains(known, f) {
			return nil, errorf(errInvalid, "Tried accessing nonexisting field (%s) on node type (%s)", f, nodeType)
		}
		if v, ok := all[f]; ok {
			out[f] = v
		}
	}
	return out, nil
}

// alphaPage answers one page of data with Graph-API cursor paging: limit (default 25, at most
// 5000) and after.
func alphaPage(w http.ResponseWriter, r *http.Request, data []map[string]any, trace string) {
	q := r.URL.Query()
	key := r.URL.Path + "|" + alphaQueryKey(q)
	limit := 25
	if l := alphaParams(r).Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 {
			alphaDialect{}.writeError(w, errorf(errInvalid, "limit must be a positive integer"), trace)
			return
		}
		limit = min(n, 5000)
	}
	offset := 0
	if c := q.Get("after"); c != "" {
		n, err := decodeCursor(c, key)
		if err != nil {
			alphaDialect{}.writeError(w, errorf(errInvalid, "%v", err), trace)
			return
		}
		offset = n
	}
	lo, hi := window(len(data), offset, limit)
	out := map[string]any{"data": append([]map[string]any{}, data[lo:hi]...)}
	if hi > lo {
		paging := map[string]any{"cursors": map[string]string{"before": encodeCursor(lo, key), "after": encodeCursor(hi, key)}}
		if hi < len(data) {
			next := url.Values{}
			for k, vs := range q {
				next[k] = vs
			}
			next.Set("after", encodeCursor(hi, key))
			next.Set("limit", strconv.Itoa(limit))
			paging["next"] = "http://" + r.Host + r.URL.Path + "?" + next.Encode()
		}
		out["paging"] = paging
	}
	writeJSON(w, http.StatusOK, out)
}

// alphaQueryKey identifies a query for its cursors: every parameter but the paging ones.
func alphaQueryKey(q url.Values) string {
	k := url.Values{}
	for name, vs := range q {
		if name != "after" && name != "before" && name != "limit" && name != "access_token" {
			k[name] = vs
		}
	}
	return k.Encode()
}
