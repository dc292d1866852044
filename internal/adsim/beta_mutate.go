package adsim

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// beta_ads writes: POST /customers/<cid>/{campaigns,adGroups,adGroupAds,campaignBudgets}:mutate
// with update operations. Atomic by default; with partialFailure each operation stands alone and
// the failures come back in partialFailureError. validateOnly checks without applying.

const betaMaxOperations = 10000

type betaOperation struct {
	Update *struct {
		ResourceName string          `json:"resourceName"`
		Status       string          `json:"status"`
		AmountMicros json.RawMessage `json:"amountMicros"`
	} `json:"update"`
	UpdateMask string `json:"updateMask"`
}

type betaMutateBody struct {
	Operations     []betaOperation `json:"operations"`
	PartialFailure bool            `json:"partialFailure"`
	ValidateOnly   bool            `json:"validateOnly"`
}

func (s *Sim) betaMutate(w http.ResponseWriter, r *http.Request, a *account, trace, kind string) {
	d := betaDialect{}
	var body betaMutateBody
	if err := decodeJSON(r, &body); err != nil {
		d.writeError(w, &apiErr{kind: errInvalid, msg: err.Error()}, trace)
		return
	}
	switch n := len(body.Operations); {
	case n == 0:
		d.writeError(w, &apiErr{kind: errInvalid, reason: "mutateError:OPERATIONS_REQUIRED", msg: "operations must not be empty"}, trace)
		return
	case n > betaMaxOperations:
		d.writeError(w, &apiErr{kind: errInvalid, reason: "requestError:TOO_MANY_MUTATE_OPERATIONS",
			msg: fmt.Sprintf("at most %d operations per request, got %d", betaMaxOperations, n)}, trace)
		return
	}
	changes := make([]Change, len(body.Operations))
	names := make([]string, len(body.Operations))
	failed := map[int]*apiErr{}
	for i, op := range body.Operations {
		c, e := s.betaChange(a, kind, op)
		if e != nil {
			e.msg = fmt.Sprintf("operations[%d]: %s", i, e.msg)
			if !body.PartialFailure {
				d.writeError(w, e, trace)
				return
			}
			failed[i] = e
			continue
		}
		changes[i], names[i] = c, op.Update.ResourceName
	}
	if !body.PartialFailure {
		if ce := s.apply(a, changes, body.ValidateOnly); ce != nil {
			e := betaChangeError(ce)
			e.msg = fmt.Sprintf("operations[%d]: %s", ce.Index, e.msg)
			d.writeError(w, e, trace)
			return
		}
	} else {
		for i := range changes {
			if failed[i] == nil {
				if ce := s.apply(a, changes[i:i+1], body.ValidateOnly); ce != nil {
					failed[i] = betaChangeError(ce)
					failed[i].msg = fmt.Sprintf("operations[%d]: %s", i, failed[i].msg)
				}
			}
		}
	}
	results := make([]map[string]string, 0, len(changes))
	for i := range changes {
		if failed[i] != nil || body.ValidateOnly {
			results = append(results, map[string]string{})
		} else {
			results = append(results, map[string]string{"resourceName": names[i]})
		}
	}
	out := map[string]any{"results": results}
	if body.ValidateOnly && !body.PartialFailure {
		out = map[string]any{}
	}
	if len(failed) > 0 {
		out["partialFailureError"] = betaPartialFailure(failed, len(changes), trace)
	}
	writeJSON(w, http.StatusOK, out)
}

// betaChange translates one update operation on a resource of kind into a Change.
func (s *Sim) betaChange(a *account, kind string, op betaOperation) (Change, *apiErr) {
	bad := func(reason, format string, args ...any) (Change, *apiErr) {
		return Change{}, &apiErr{kind: errInvalid, reason: reason, msg: fmt.Sprintf(format, args...)}
	}
	if op.Update == nil {
		return bad("mutateError:MUTATE_NOT_ALLOWED", "only update operations are served by the simulator")
	}
	u := op.Update
	prefix := "customers/" + a.id + "/" + kind + "/"
	id, ok := strings.CutPrefix(u.ResourceName, prefix)
	if !ok || id == "" {
		return bad("requestError:RESOURCE_NAME_MALFORMED", "resourceName %q: want %s<id>", u.ResourceName, prefix)
	}
	var o *object
	switch kind {
	case "campaignBudgets":
		o = s.budgetOwners[id]
	case "adGroupAds":
		group, ad, _ := strings.Cut(id, "~")
		if o = s.objects[ad]; o != nil && (o.level != LevelAd || o.parent.id != group) {
			o = nil
		}
	default:
		want := map[string]Level{"campaigns": LevelCampaign, "adGroups": LevelAdSet}[kind]
		if o = s.objects[id]; o != nil && o.level != want {
			o = nil
		}
	}
	if o == nil || o.acct != a {
		return bad("mutateError:RESOURCE_NOT_FOUND", "resource %s was not found", u.ResourceName)
	}
	wantMask := "status"
	if kind == "campaignBudgets" {
		wantMask = "amount_micros"
	}
	switch mask := strings.ReplaceAll(op.UpdateMask, "amountMicros", "amount_micros"); {
	case mask == "":
		return bad("fieldMaskError:FIELD_MASK_MISSING", "updateMask is required")
	case mask != wantMask:
		return bad("fieldMaskError:FIELD_NOT_FOUND", "updateMask %q: the simulator updates only %s of %s", op.UpdateMask, wantMask, kind)
	}
	if kind != "campaignBudgets" {
		st := map[string]Status{"ENABLED": Active, "PAUSED": Paused}[u.Status]
		if st == "" {
			return bad("requestError:INVALID_ENUM_VALUE", "status %q: want ENABLED or PAUSED", u.Status)
		}
		return Change{ObjectID: o.id, Status: st}, nil
	}
	micros, err := strconv.ParseInt(strings.Trim(string(u.AmountMicros), `"`), 10, 64)
	if err != nil {
		return bad("fieldError:INVALID_VALUE", "amountMicros must be an integer")
	}
	unit := microsPerMinor(a.exp)
	if micros%unit != 0 {
		return bad("campaignBudgetError:NON_MULTIPLE_OF_MINIMUM_CURRENCY_UNIT", "amountMicros must be a multiple of %d (one minor unit of %s)", unit, a.currency)
	}
	if micros <= 0 {
		return bad("rangeError:TOO_LOW", "amountMicros must be positive")
	}
	return Change{ObjectID: o.id, Budget: micros / unit}, nil
}

// betaChangeError maps a refused change to Google's error codes.
func betaChangeError(ce *ChangeError) *apiErr {
	e := &apiErr{kind: errInvalid, msg: ce.Message}
	switch ce.Code {
	case ErrUnknownObject:
		e.reason = "mutateError:RESOURCE_NOT_FOUND"
	case ErrTooManyBudgetChanges:
		e.kind = errBudgetLimit
	case ErrBudgetNotPositive:
		e.reason = "rangeError:TOO_LOW"
	case ErrBudgetTooLarge:
		e.reason = "rangeError:TOO_HIGH"
	}
	return e
}

// betaPartialFailure is the partialFailureError of a mutate: a google.rpc.Status holding one
// GoogleAdsFailure with an error per failed operation, located by its index.
func betaPartialFailure(failed map[int]*apiErr, n int, trace string) map[string]any {
	var errs []map[string]any
	first := ""
	for i := 0; i < n; i++ {
		e := failed[i]
		if e == nil {
			continue
		}
		reason := e.reason
		if e.kind == errBudgetLimit {
			reason = "campaignBudgetError:BUDGET_CHANGE_LIMIT_EXCEEDED"
		}
		category, enum, _ := strings.Cut(reason, ":")
		errs = append(errs, map[string]any{
			"errorCode": map[string]string{category: enum},
			"message":   e.msg,
			"location":  map[string]any{"fieldPathElements": []map[string]any{{"fieldName": "operations", "index": i}}},
		})
		if first == "" {
			first = e.msg
		}
	}
	return map[string]any{
		"code":    3,
		"message": "Multiple errors in 'details'. First error: " + first,
		"details": []map[string]any{{
			"@type":     "type.googleapis.com/google.ads.googleads." + betaVersion + ".errors.GoogleAdsFailure",
			"errors":    errs,
			"requestId": trace,
		}},
	}
}
