package adsim

import "fmt"

// Writes: status and budget changes, as every network takes them after translating its own
// request shape. A batch is all or nothing: every change is checked first, then all are recorded
// at the clock's now and affect accrual from that second on.

// Change is one write to one object: a status or a budget, never both.
type Change struct {
	ObjectID string
	// Status is ACTIVE or PAUSED; empty for a budget change.
	Status Status
	// Budget is the new budget in minor units of the account currency; 0 for a status change.
	Budget int64
	// Kind is the budget the caller names (alpha's daily_budget or lifetime_budget); empty means
	// the object's own kind.
	Kind BudgetKind
}

// ChangeCode says why a change was refused.
type ChangeCode string

// The reasons a change is refused.
const (
	ErrUnknownObject        ChangeCode = "unknown_object"          // no such object in the account
	ErrInvalidChange        ChangeCode = "invalid_change"          // neither or both of status and budget, or a bad status
	ErrNoBudget             ChangeCode = "no_budget"               // the object holds no budget (an ad, or budget at another level)
	ErrBudgetKind           ChangeCode = "wrong_budget_kind"       // daily budget on a lifetime object or the reverse
	ErrBudgetNotPositive    ChangeCode = "budget_not_positive"     // budget <= 0
	ErrBudgetTooLarge       ChangeCode = "budget_too_large"        // above MaxBudget
	ErrTooManyBudgetChanges ChangeCode = "too_many_budget_changes" // over Config.BudgetChangesPerHour in the last hour
)

// MaxBudget is the largest budget accepted, in minor units (100 million in major units).
const MaxBudget = 10_000_000_000

// ChangeError is a refused change; Index is its position in the batch.
type ChangeError struct {
	Index   int
	Code    ChangeCode
	Message string
}

func (e *ChangeError) Error() string {
	return fmt.Sprintf("adsim: change %d: %s: %s", e.Index, e.Code, e.Message)
}

// Apply checks and records changes at the clock's now, all or none, with every rule the networks
// enforce. A refusal is a *ChangeError.
func (s *Sim) Apply(changes []Change) error {
	if e := s.apply(nil, changes, false); e != nil {
		return e
	}
	return nil
}

// SetStatus pauses or activates one object now.
func (s *Sim) SetStatus(objectID string, st Status) error {
	return s.Apply([]Change{{ObjectID: objectID, Status: st}})
}

// SetBudget sets one object's budget (of its own kind) now, in minor units.
func (s *Sim) SetBudget(objectID string, minor int64) error {
	return s.Apply([]Change{{ObjectID: objectID, Budget: minor}})
}

// Rename gives one object a new name now, as an advertiser does in the network's interface.
func (s *Sim) Rename(objectID, name string) error {
	o, ok := s.objects[objectID]
	if !ok {
		return fmt.Errorf("adsim: no object %q", objectID)
	}
	o.renamed.Store(&name)
	return nil
}

// apply is Apply restricted to account a's objects (any account when a is nil). With dry it only
// checks.
func (s *Sim) apply(a *account, changes []Change, dry bool) *ChangeError {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	objs := make([]*object, len(changes))
	pending := map[*object]int{}
	for i, c := range changes {
		o, err := s.check(a, c, now, pending)
		if err != nil {
			return &ChangeError{Index: i, Code: err.code, Message: err.msg}
		}
		objs[i] = o
	}
	if dry {
		return nil
	}
	for i, c := range changes {
		if c.Status != "" {
			objs[i].insertStatus(statusChange{at: now, status: c.Status})
		} else {
			objs[i].insertBudget(budgetChange{at: now, amount: c.Budget, api: true})
		}
	}
	return nil
}

type refusal struct {
	code ChangeCode
	msg  string
}

// check validates one change; pending counts the budget changes earlier in the same batch.
func (s *Sim) check(a *account, c Change, now int64, pending map[*object]int) (*object, *refusal) {
	o := s.objects[c.ObjectID]
	if o == nil || (a != nil && o.acct != a) {
		return nil, &refusal{ErrUnknownObject, fmt.Sprintf("object %q does not exist", c.ObjectID)}
	}
	switch {
	case c.Status != "" && c.Budget != 0, c.Status == "" && c.Budget == 0 && c.Kind == "":
		return nil, &refusal{ErrInvalidChange, "give exactly one of status and budget"}
	case c.Status != "":
		if c.Status != Active && c.Status != Paused {
			return nil, &refusal{ErrInvalidChange, fmt.Sprintf("status %q: want ACTIVE or PAUSED", c.Status)}
		}
		return o, nil
	case o.budget == BudgetNone:
		return nil, &refusal{ErrNoBudget, fmt.Sprintf("%s %s has no budget of its own", o.level, o.id)}
	case c.Kind != "" && c.Kind != o.budget:
		return nil, &refusal{ErrBudgetKind, fmt.Sprintf("%s %s has a %s budget, not a %s one", o.level, o.id, o.budget, c.Kind)}
	case c.Budget <= 0:
		return nil, &refusal{ErrBudgetNotPositive, "budget must be a positive amount in minor units"}
	case c.Budget > MaxBudget:
		return nil, &refusal{ErrBudgetTooLarge, fmt.Sprintf("budget must be at most %d minor units", int64(MaxBudget))}
	}
	n := pending[o]
	for _, b := range o.budgets {
		if b.api && b.at > now-3600 && b.at <= now {
			n++
		}
	}
	if n >= s.cfg.BudgetChangesPerHour {
		return nil, &refusal{ErrTooManyBudgetChanges,
			fmt.Sprintf("the budget of %s %s can change at most %d times an hour", o.level, o.id, s.cfg.BudgetChangesPerHour)}
	}
	pending[o]++
	return o, nil
}
