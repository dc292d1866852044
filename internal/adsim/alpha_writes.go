package adsim

import (
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// alpha_ads writes: POST /alpha/v19.0/<object_id> with status, daily_budget or lifetime_budget,
// and the Graph API batch, POST /alpha/v19.0/ with batch=[...].

// alphaMaxBatch is the Graph API's limit of requests in one batch.
const alphaMaxBatch = 50

func (s *Sim) alphaUpdate(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := alphaDialect{}
	id := r.PathValue("node")
	p := alphaParams(r)
	var changes []Change
	for _, k := range slices.Sorted(maps.Keys(p)) {
		switch k {
		case "access_token":
		case "status":
			st := Status(p.Get(k))
			if st != Active && st != Paused {
				d.writeError(w, errorf(errInvalid, "Param status must be one of {ACTIVE, PAUSED} in the simulator"), trace)
				return
			}
			changes = append(changes, Change{ObjectID: id, Status: st})
		case "daily_budget", "lifetime_budget":
			n, err := strconv.ParseInt(p.Get(k), 10, 64)
			if err != nil {
				d.writeError(w, errorf(errInvalid, "Param %s must be an integer amount in the account currency's minor units", k), trace)
				return
			}
			kind := map[string]BudgetKind{"daily_budget": BudgetDaily, "lifetime_budget": BudgetLifetime}[k]
			changes = append(changes, Change{ObjectID: id, Budget: n, Kind: kind})
		default:
			d.writeError(w, errorf(errInvalid, "Param %s is not supported by the simulator (status, daily_budget, lifetime_budget)", k), trace)
			return
		}
	}
	if len(changes) == 0 {
		d.writeError(w, errorf(errInvalid, "No fields to update: give status, daily_budget or lifetime_budget"), trace)
		return
	}
	if ce := s.apply(a, changes, false); ce != nil {
		d.writeError(w, alphaChangeError(ce, id), trace)
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"success": true})
}

// alphaChangeError maps a refused change of object id to the Graph API's error kinds.
func alphaChangeError(ce *ChangeError, id string) *apiErr {
	switch ce.Code {
	case ErrUnknownObject:
		return alphaMissing(id)
	case ErrTooManyBudgetChanges:
		return errorf(errBudgetLimit, "%s", ce.Message)
	}
	return errorf(errInvalid, "%s", ce.Message)
}

type alphaBatchItem struct {
	Method      string `json:"method"`
	RelativeURL string `json:"relative_url"`
	Body        string `json:"body"`
}

// alphaBatch runs each item of batch as its own request (each counts toward the quota, as on the
// Graph API) and answers their statuses and bodies in order.
func (s *Sim) alphaBatch(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := alphaDialect{}
	var items []alphaBatchItem
	if err := json.Unmarshal([]byte(alphaParams(r).Get("batch")), &items); err != nil || len(items) == 0 {
		d.writeError(w, errorf(errInvalid, "The parameter batch is required: a JSON array of {method, relative_url, body}"), trace)
		return
	}
	if len(items) > alphaMaxBatch {
		d.writeError(w, errorf(errInvalid, "Too many requests in batch message. Maximum batch size is %d", alphaMaxBatch), trace)
		return
	}
	out := make([]map[string]any, len(items))
	for i, it := range items {
		path := strings.TrimPrefix(it.RelativeURL, "/")
		if !alphaVersionRE.MatchString(strings.SplitN(path, "/", 2)[0]) {
			path = r.PathValue("ver") + "/" + path
		}
		u, err := url.Parse("/alpha/" + path)
		if err != nil {
			out[i] = map[string]any{"code": http.StatusBadRequest, "body": `{"error":{"message":"(#100) bad relative_url","type":"OAuthException","code":100}}`}
			continue
		}
		q := u.Query()
		q.Set("access_token", a.token)
		u.RawQuery = q.Encode()
		sub := httptest.NewRequestWithContext(r.Context(), strings.ToUpper(it.Method), u.String(), strings.NewReader(it.Body))
		sub.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		s.mux.ServeHTTP(rec, sub)
		out[i] = map[string]any{
			"code":    rec.Code,
			"headers": []map[string]string{{"name": "Content-Type", "value": "application/json"}},
			"body":    strings.TrimSpace(rec.Body.String()),
		}
	}
	writeJSON(w, http.StatusOK, out)
}
