package adsim

import (
	"net/http"
	"strconv"
	"strings"
)

// beta_ads: a Google-Ads-style network: GAQL search over REST, money in micros. See README.md.

const betaVersion = "v16"

type betaDialect struct{}

func (betaDialect) network() Network { return Beta }

func (betaDialect) token(r *http.Request) string {
	t, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return strings.TrimSpace(t)
}

// writeError answers in Google's REST error shape, with one GoogleAdsFailure error whose
// errorCode is {category: reason}.
func (betaDialect) writeError(w http.ResponseWriter, e *apiErr, trace string) {
	status, name, reason := http.StatusBadRequest, "INVALID_ARGUMENT", e.reason
	var details map[string]any
	switch e.kind {
	case errAuth:
		status, name = http.StatusUnauthorized, "UNAUTHENTICATED"
		if reason == "" {
			reason = "authenticationError:OAUTH_TOKEN_INVALID"
		}
	case errNotFound:
		status, name = http.StatusForbidden, "PERMISSION_DENIED"
		if reason == "" {
			reason = "authorizationError:USER_PERMISSION_DENIED"
		}
	case errRateLimit:
		status, name, reason = http.StatusTooManyRequests, "RESOURCE_EXHAUSTED", "quotaError:RESOURCE_EXHAUSTED"
		details = map[string]any{"quotaErrorDetails": map[string]any{"rateScope": "DEVELOPER",
			"rateName": "Requests per access token per minute", "retryDelay": strconv.Itoa(e.retryAfter) + "s"}}
	case errBudgetLimit:
		reason = "campaignBudgetError:BUDGET_CHANGE_LIMIT_EXCEEDED"
	case errServer:
		status, name, reason = e.status, "INTERNAL", "internalError:INTERNAL_ERROR"
		if status == http.StatusServiceUnavailable {
			name, reason = "UNAVAILABLE", "internalError:TRANSIENT_ERROR"
		}
	case errTimeout:
		status, name, reason = http.StatusGatewayTimeout, "DEADLINE_EXCEEDED", "internalError:DEADLINE_EXCEEDED"
	}
	if reason == "" {
		reason = "requestError:INVALID_INPUT"
	}
	category, enum, _ := strings.Cut(reason, ":")
	gerr := map[string]any{"errorCode": map[string]string{category: enum}, "message": e.msg}
	if details != nil {
		gerr["details"] = details
	}
	writeJSON(w, status, map[string]any{"error": map[string]any{
		"code": status, "message": betaStatusMessage(name), "status": name,
		"details": []map[string]any{{
			"@type":     "type.googleapis.com/google.ads.googleads." + betaVersion + ".errors.GoogleAdsFailure",
			"errors":    []map[string]any{gerr},
			"requestId": trace,
		}},
	}})
}

func betaStatusMessage(name string) string {
	switch name {
	case "UNAUTHENTICATED":
		return "Request is missing required authentication credential."
	case "PERMISSION_DENIED":
		return "The caller does not have permission"
	case "RESOURCE_EXHAUSTED":
		return "Resource has been exhausted (e.g. check quota)."
	case "INVALID_ARGUMENT":
		return "Request contains an invalid argument."
	case "DEADLINE_EXCEEDED":
		return "Deadline exceeded."
	}
	return "Internal error encountered."
}

func (s *Sim) betaRoutes(mux *http.ServeMux) {
	d := betaDialect{}
	mux.Handle("GET /beta/{ver}/customers:listAccessibleCustomers", s.serve(d, s.betaChecked(s.betaListCustomers, false)))
	mux.Handle("POST /beta/{ver}/customers/{cid}/{method}", s.serve(d, s.betaChecked(s.betaMethod, true)))
}

// betaChecked checks the API version, the developer-token header and (when perCustomer) that the
// path's customer is the token's account.
func (s *Sim) betaChecked(h netHandler, perCustomer bool) netHandler {
	d := betaDialect{}
	return func(w http.ResponseWriter, r *http.Request, a *account, trace string) {
		switch {
		case r.PathValue("ver") != betaVersion:
			d.writeError(w, &apiErr{kind: errInvalid, reason: "requestError:UNSUPPORTED_VERSION",
				msg: "Version " + r.PathValue("ver") + " is not served by the simulator; use " + betaVersion}, trace)
		case r.Header.Get("developer-token") != s.cfg.DeveloperToken:
			d.writeError(w, &apiErr{kind: errAuth, reason: "authenticationError:DEVELOPER_TOKEN_INVALID",
				msg: "The developer token is not valid."}, trace)
		case perCustomer && strings.ReplaceAll(r.PathValue("cid"), "-", "") != a.id:
			d.writeError(w, &apiErr{kind: errNotFound, msg: "User doesn't have permission to access customer " + r.PathValue("cid") + "."}, trace)
		default:
			h(w, r, a, trace)
		}
	}
}

func (s *Sim) betaListCustomers(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	writeJSON(w, http.StatusOK, map[string]any{"resourceNames": []string{"customers/" + a.id}})
}

// betaMethod dispatches POST /customers/<cid>/<method>.
func (s *Sim) betaMethod(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	switch m := r.PathValue("method"); m {
	case "googleAds:search":
		s.betaSearch(w, r, a, trace, false)
	case "googleAds:searchStream":
		s.betaSearch(w, r, a, trace, true)
	case "campaigns:mutate", "adGroups:mutate", "adGroupAds:mutate", "campaignBudgets:mutate":
		s.betaMutate(w, r, a, trace, strings.TrimSuffix(m, ":mutate"))
	default:
		betaDialect{}.writeError(w, &apiErr{kind: errInvalid, reason: "requestError:UNKNOWN_METHOD",
			msg: "Method " + m + " is not served by the simulator."}, trace)
	}
}
