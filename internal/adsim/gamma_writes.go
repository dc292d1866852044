package adsim

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// gamma_ads writes: status updates of campaigns, ad groups and ads (ENABLE/DISABLE, up to 20 ids),
// a campaign's budget (campaign/update/) and ad groups' budgets (adgroup/budget/update/, up to 20).
// Budgets are decimal amounts in major units ("150.5" or 150.5), read exactly.

var gammaIDsField = map[Level]string{LevelCampaign: "campaign_ids", LevelAdSet: "adgroup_ids", LevelAd: "ad_ids"}

// gammaStatus serves <kind>/status/update/.
func (s *Sim) gammaStatus(level Level) netHandler {
	field := gammaIDsField[level]
	return func(w http.ResponseWriter, r *http.Request, a *account, trace string) {
		d := gammaDialect{}
		var body map[string]json.RawMessage
		if err := decodeJSON(r, &body); err != nil {
			d.writeError(w, errorf(errInvalid, "%v", err), trace)
			return
		}
		var adv, status string
		var ids []string
		_ = json.Unmarshal(body["advertiser_id"], &adv)
		_ = json.Unmarshal(body["operation_status"], &status)
		if !gammaAdvertiser(w, adv, a, trace) {
			return
		}
		if err := json.Unmarshal(body[field], &ids); err != nil || len(ids) == 0 || len(ids) > gammaMaxIDs {
			d.writeError(w, errorf(errInvalid, "%s: want a JSON array of 1 to %d ids.", field, gammaMaxIDs), trace)
			return
		}
		st := map[string]Status{"ENABLE": Active, "DISABLE": Paused}[status]
		if st == "" {
			d.writeError(w, errorf(errInvalid, "operation_status: Must be one of ENABLE, DISABLE (DELETE is not served by the simulator)."), trace)
			return
		}
		changes := make([]Change, len(ids))
		for i, id := range ids {
			if o := s.objects[id]; o == nil || o.level != level || o.acct != a {
				d.writeError(w, errorf(errNotFound, "%s: %s does not exist or does not belong to advertiser %s.", field, id, a.id), trace)
				return
			}
			changes[i] = Change{ObjectID: id, Status: st}
		}
		if ce := s.apply(a, changes, false); ce != nil {
			d.writeError(w, gammaChangeError(ce), trace)
			return
		}
		gammaOKBody(w, trace, map[string]any{field: ids, "operation_status": status})
	}
}

// gammaBudget reads a budget amount given as a JSON number or string in major units.
func gammaBudget(raw json.RawMessage, a *account) (int64, *apiErr) {
	minor, err := parseMajor(strings.Trim(string(raw), `"`), a.exp)
	if err != nil || len(raw) == 0 {
		return 0, errorf(errInvalid, "budget: want a positive amount in %s with at most %d decimals.", a.currency, a.exp)
	}
	return minor, nil
}

func (s *Sim) gammaCampaignBudget(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := gammaDialect{}
	var adv, campaign string
	var raw map[string]json.RawMessage
	if err := decodeJSON(r, &raw); err != nil {
		d.writeError(w, errorf(errInvalid, "%v", err), trace)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if k != "advertiser_id" && k != "campaign_id" && k != "budget" {
			d.writeError(w, errorf(errInvalid, "%s: the simulator updates only the budget of a campaign.", k), trace)
			return
		}
	}
	_ = json.Unmarshal(raw["advertiser_id"], &adv)
	_ = json.Unmarshal(raw["campaign_id"], &campaign)
	if !gammaAdvertiser(w, adv, a, trace) {
		return
	}
	if o := s.objects[campaign]; o == nil || o.level != LevelCampaign || o.acct != a {
		d.writeError(w, errorf(errNotFound, "campaign_id: %s does not exist or does not belong to advertiser %s.", campaign, a.id), trace)
		return
	}
	minor, e := gammaBudget(raw["budget"], a)
	if e != nil {
		d.writeError(w, e, trace)
		return
	}
	if ce := s.apply(a, []Change{{ObjectID: campaign, Budget: minor}}, false); ce != nil {
		d.writeError(w, gammaChangeError(ce), trace)
		return
	}
	gammaOKBody(w, trace, map[string]any{"campaign_id": campaign, "budget": formatMinor(minor, a.exp)})
}

func (s *Sim) gammaAdGroupBudgets(w http.ResponseWriter, r *http.Request, a *account, trace string) {
	d := gammaDialect{}
	var body struct {
		AdvertiserID string `json:"advertiser_id"`
		Budget       []struct {
			AdGroupID string          `json:"adgroup_id"`
			Budget    json.RawMessage `json:"budget"`
		} `json:"budget"`
	}
	if err := decodeJSON(r, &body); err != nil {
		d.writeError(w, errorf(errInvalid, "%v", err), trace)
		return
	}
	if !gammaAdvertiser(w, body.AdvertiserID, a, trace) {
		return
	}
	if n := len(body.Budget); n == 0 || n > gammaMaxIDs {
		d.writeError(w, errorf(errInvalid, "budget: want 1 to %d items of {adgroup_id, budget}.", gammaMaxIDs), trace)
		return
	}
	changes := make([]Change, len(body.Budget))
	for i, it := range body.Budget {
		if o := s.objects[it.AdGroupID]; o == nil || o.level != LevelAdSet || o.acct != a {
			d.writeError(w, errorf(errNotFound, "budget[%d].adgroup_id: %s does not exist or does not belong to advertiser %s.", i, it.AdGroupID, a.id), trace)
			return
		}
		minor, e := gammaBudget(it.Budget, a)
		if e != nil {
			e.msg = fmt.Sprintf("budget[%d].%s", i, e.msg)
			d.writeError(w, e, trace)
			return
		}
		changes[i] = Change{ObjectID: it.AdGroupID, Budget: minor}
	}
	if ce := s.apply(a, changes, false); ce != nil {
		d.writeError(w, gammaChangeError(ce), trace)
		return
	}
	gammaOKBody(w, trace, map[string]any{})
}

// gammaChangeError maps a refused change to the envelope's codes.
func gammaChangeError(ce *ChangeError) *apiErr {
	if ce.Code == ErrUnknownObject {
		return errorf(errNotFound, "%s", ce.Message)
	}
	if ce.Code == ErrTooManyBudgetChanges {
		return errorf(errBudgetLimit, "%s", ce.Message)
	}
	return errorf(errInvalid, "%s", ce.Message)
}
