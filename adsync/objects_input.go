package adsync

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"

	"mtk/internal/apperr"
)

// MaxObjectUpdates is the most items one PUT objects takes.
const MaxObjectUpdates = 1000

// MaxBudget is the largest budget in cents an update may set.
const MaxBudget = 10_000_000_000

// ObjectsInput is the body of PUT /v3/connections/{id}/objects. Status and Budget stay raw so
// that a wrong type is reported per item, not as a malformed body.
type ObjectsInput struct {
	Type    string         `json:"type"`
	Updates []ObjectUpdate `json:"updates"`
}

// ObjectUpdate is one item: exactly one of Status and Budget.
type ObjectUpdate struct {
	ID     string          `json:"id"`
	Status json.RawMessage `json:"status"`
	Budget json.RawMessage `json:"budget"`
}

// item is a validated update.
type item struct {
	id     string
	status string // ACTIVE or PAUSED, or "" for a budget
	budget int64  // cents, or 0 for a status
}

func present(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// validate checks every rule and names each broken one; a body with any is refused whole.
func (in ObjectsInput) validate() ([]item, error) {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	switch in.Type {
	case LevelCampaign, LevelAdset, LevelAd:
	case "":
		add("type: required (campaign, adset or ad)")
	default:
		add("type: %q is not one of campaign, adset, ad", in.Type)
	}
	switch {
	case len(in.Updates) == 0:
		add("updates: at least one update is required")
	case len(in.Updates) > MaxObjectUpdates:
		add("updates: at most %d updates per call, got %d", MaxObjectUpdates, len(in.Updates))
	}
	items := make([]item, len(in.Updates))
	for i, u := range in.Updates {
		at := fmt.Sprintf("updates[%d]", i)
		items[i].id = u.ID
		if u.ID == "" {
			add("%s.id: required", at)
		}
		hasStatus, hasBudget := present(u.Status), present(u.Budget)
		switch {
		case hasStatus && hasBudget:
			add("%s: has both status and budget; send exactly one", at)
		case !hasStatus && !hasBudget:
			add("%s: has neither status nor budget; send exactly one", at)
		case hasStatus:
			var s string
			if json.Unmarshal(u.Status, &s) != nil || (s != StatusActive && s != StatusPaused) {
				add("%s.status: must be ACTIVE or PAUSED, got %s", at, u.Status)
			}
			items[i].status = s
		case in.Type == LevelAd:
			add("%s.budget: an ad has no budget (set it on its ad set or campaign)", at)
		default:
			b, ok := positiveInt(u.Budget)
			if !ok {
				add("%s.budget: must be a positive integer of cents (at most %d), got %s", at, int64(MaxBudget), u.Budget)
			}
			items[i].budget = b
		}
	}
	if len(problems) > 0 {
		return nil, apperr.Invalid("Invalid object updates; nothing was changed.", problems...)
	}
	return items, nil
}

// positiveInt reads a JSON number that is an integer from 1 to MaxBudget (1e3 and 100.0 are
// integers; strings are not numbers).
func positiveInt(raw json.RawMessage) (int64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '"' {
		return 0, false
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&n) != nil {
		return 0, false
	}
	r, ok := new(big.Rat).SetString(n.String())
	if !ok || !r.IsInt() || r.Sign() <= 0 || r.Num().Cmp(big.NewInt(MaxBudget)) > 0 {
		return 0, false
	}
	return r.Num().Int64(), true
}
