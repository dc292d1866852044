package adsim

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// gamma_ads: a TikTok-Business-API-style network under /gamma/open_api/v1.3/. Every answer is the
// envelope {code, message, request_id, data}; code 0 is success. As on TikTok, request errors
// come with HTTP 200 and a non-zero code; only the quota (429) and server faults (5xx) change the
// HTTP status. See README.md.

const gammaBase = "/gamma/open_api/v1.3/"

// The envelope codes the simulator uses.
const (
	gammaOK          = 0
	gammaNoAuth      = 40001 // the token may not act on this advertiser or object
	gammaBadParam    = 40002
	gammaRateLimited = 40100
	gammaBadToken    = 40105
	gammaServerError = 50000
)

// gammaTimeLayout is how TikTok writes times: UTC, without a zone.
const gammaTimeLayout = "2006-01-02 15:04:05"

// gammaMaxIDs is the most ids (or budget items) one write takes.
const gammaMaxIDs = 20

type gammaDialect struct{}

func (gammaDialect) network() Network { return Gamma }

func (gammaDialect) token(r *http.Request) string { return r.Header.Get("Access-Token") }

func (gammaDialect) writeError(w http.ResponseWriter, e *apiErr, trace string) {
	status, code := http.StatusOK, gammaBadParam
	switch e.kind {
	case errAuth:
		code = gammaBadToken
	case errNotFound:
		code = gammaNoAuth
	case errRateLimit:
		status, code = http.StatusTooManyRequests, gammaRateLimited
	case errServer:
		status, code = e.status, gammaServerError
	case errTimeout:
		status, code = http.StatusGatewayTimeout, gammaServerError
	}
	writeJSON(w, status, map[string]any{"code": code, "message": e.msg, "request_id": trace, "data": map[string]any{}})
}

func gammaOKBody(w http.ResponseWriter, trace string, data any) {
	writeJSON(w, http.StatusOK, map[string]any{"code": gammaOK, "message": "OK", "request_id": trace, "data": data})
}

func (s *Sim) gammaRoutes(mux *http.ServeMux) {
	d := gammaDialect{}
	get := map[string]netHandler{
		"advertiser/info/":       s.gammaAdvertiserInfo,
		"campaign/get/":          s.gammaList(LevelCampaign),
		"adgroup/get/":           s.gammaList(LevelAdSet),
		"ad/get/":                s.gammaList(LevelAd),
		"report/integrated/get/": s.gammaReport,
	}
	for path, h := range get {
		mux.Handle("GET "+gammaBase+path, s.serve(d, h))
	}
	post := map[string]netHandler{
		"campaign/status/update/": s.gammaStatus(LevelCampaign),
		"adgroup/status/update/":  s.gammaStatus(LevelAdSet),
		"ad/status/update/":       s.gammaStatus(LevelAd),
		"campaign/update/":        s.gammaCampaignBudget,
		"adgroup/budget/update/":  s.gammaAdGroupBudgets,
	}
	for path, h := range post {
		mux.Handle("POST "+gammaBase+path, s.serve(d, h))
	}
}

// gammaAdvertiser checks the advertiser_id parameter against the token's account.
func gammaAdvertiser(w http.ResponseWriter, id string, a *account, trace string) bool {
	switch {
	case id == "":
		gammaDialect{}.writeError(w, errorf(errInvalid, "advertiser_id: Missing data for required field."), trace)
	case id != a.id:
		gammaDialect{}.writeError(w, errorf(errNotFound, "No permission to operate advertiser %s.", id), trace)
	default:
		return true
	}
	return false
}

func (s *Sim) gammaAdvertiserInfo(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	var ids []string
	if err := json.Unmarshal([]byte(r.URL.Query().Get("advertiser_ids")), &ids); err != nil || len(ids) == 0 {
		gammaDialect{}.writeError(w, errorf(errInvalid, `advertiser_ids: want a JSON array of ids, e.g. ["7000000000000000000"]`), trace)
		return
	}
	var list []map[string]any
	for _, id := range ids {
		if !gammaAdvertiser(w, id, a, trace) {
			return
		}
		list = append(list, map[string]any{"advertiser_id": a.id, "name": a.name, "currency": a.currency,
			"timezone": a.tz, "display_timezone": a.tz, "status": "STATUS_ENABLE",
			"create_time": a.created})
	}
	gammaOKBody(w, trace, map[string]any{"list": list})
}

// gammaPaging reads page (from 1) and page_size (1 to 1000, default 10).
func gammaPaging(q url.Values) (page, size int, e *apiErr) {
	page, size = 1, 10
	if v := q.Get("page"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, 0, errorf(errInvalid, "page: Must be greater than or equal to 1.")
		}
		page = n
	}
	if v := q.Get("page_size"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			return 0, 0, errorf(errInvalid, "page_size: Must be between 1 and 1000.")
		}
		size = n
	}
	return page, size, nil
}

// gammaPage is one page of list with TikTok's page_info.
func gammaPage[T any](list []T, page, size int) map[string]any {
	lo, hi := window(len(list), (page-1)*size, size)
	return map[string]any{"list": append([]T{}, list[lo:hi]...), "page_info": map[string]int{
		"page": page, "page_size": size, "total_number": len(list), "total_page": (len(list) + size - 1) / size}}
}

// gammaList serves campaign/get/, adgroup/get/ and ad/get/.
func (s *Sim) gammaList(level Level) netHandler {
	return func(w http.ResponseWriter, r *http.Request, a *account, trace string) {
		q := r.URL.Query()
		if !gammaAdvertiser(w, q.Get("advertiser_id"), a, trace) {
			return
		}
		if q.Get("filtering") != "" {
			gammaDialect{}.writeError(w, errorf(errInvalid, "filtering is not supported by the simulator"), trace)
			return
		}
		page, size, e := gammaPaging(q)
		if e != nil {
			gammaDialect{}.writeError(w, e, trace)
			return
		}
		now := s.now()
		var list []map[string]any
		s.mu.RLock()
		for _, o := range a.ofLevel(level) {
			list = append(list, gammaObject(o, now))
		}
		s.mu.RUnlock()
		gammaOKBody(w, trace, gammaPage(list, page, size))
	}
}

// gammaObject renders o at now; the caller holds s.mu.
func gammaObject(o *object, now int64) map[string]any {
	a := o.acct
	status := map[Status]string{Active: "ENABLE", Paused: "DISABLE"}[o.statusAt(now)]
	m := map[string]any{"advertiser_id": a.id, "operation_status": status,
		"secondary_status": gammaSecondary(o, now), "create_time": time.Unix(o.start, 0).UTC().Format(gammaTimeLayout)}
	camp := o.ancestor(LevelCampaign)
	m["campaign_id"] = camp.id
	switch o.level {
	case LevelCampaign:
		m["campaign_name"], m["objective_type"] = o.title(), o.objective
	case LevelAdSet:
		m["adgroup_id"], m["adgroup_name"] = o.id, o.title()
		m["schedule_start_time"] = time.Unix(o.start, 0).UTC().Format(gammaTimeLayout)
		if o.end != 0 {
			m["schedule_end_time"] = time.Unix(o.end, 0).UTC().Format(gammaTimeLayout)
		}
	case LevelAd:
		m["adgroup_id"], m["ad_id"], m["ad_name"] = o.parent.id, o.id, o.title()
	}
	if o.level != LevelAd {
		m["budget_mode"] = map[BudgetKind]string{BudgetNone: "BUDGET_MODE_INFINITE", BudgetDaily: "BUDGET_MODE_DAY",
			BudgetLifetime: "BUDGET_MODE_TOTAL"}[o.budget]
		m["budget"] = formatMinor(o.budgetAt(now), a.exp)
	}
	return m
}

// gammaSecondary is TikTok's secondary_status: why an object delivers or not.
func gammaSecondary(o *object, now int64) string {
	prefix := map[Level]string{LevelCampaign: "CAMPAIGN_STATUS_", LevelAdSet: "ADGROUP_STATUS_", LevelAd: "AD_STATUS_"}[o.level]
	switch eff := o.effectiveStatus(now); {
	case eff == "CAMPAIGN_PAUSED":
		return prefix + "CAMPAIGN_DISABLE"
	case eff == "ADSET_PAUSED":
		return prefix + "ADGROUP_DISABLE"
	case eff == string(Paused):
		return prefix + "DISABLE"
	case o.end != 0 && now >= o.end:
		return prefix + "TIME_DONE"
	case o.level == LevelCampaign:
		return prefix + "ENABLE"
	}
	return prefix + "DELIVERY_OK"
}
