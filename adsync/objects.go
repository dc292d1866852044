package adsync

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"mtk/facts"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/internal/config"
	"mtk/platform"
)

// Objects applies PUT /v3/connections/{id}/objects: status and budget changes of a connection's
// campaigns, ad sets or ads, sent to the network, audited, and followed by the stored objects.
type Objects struct {
	Store      *Store
	Connectors ConnectorFunc
	Clock      clock.Clock
	// StoreTimeout bounds recording the outcomes, which starts once the network has answered,
	// past the request's own deadline (0: config.DefaultStoreTimeout).
	StoreTimeout time.Duration
}

// Actor is who asks for a change: an API key or a user.
type Actor struct {
	Kind string // api_key or user
	ID   string
}

// ItemResult is the outcome of one update, in the body's order.
type ItemResult struct {
	ID    string `json:"id"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// ObjectsSummary counts the outcomes.
type ObjectsSummary struct {
	Updated int `json:"updated"`
	Failed  int `json:"failed"`
}

// ObjectsResult is the 200 answer: success is true when every update was applied.
type ObjectsResult struct {
	Success bool           `json:"success"`
	Results []ItemResult   `json:"results"`
	Summary ObjectsSummary `json:"summary"`
}

// Apply validates in (a body that breaks a rule is refused whole), checks each item against the
// connection's stored objects (an object of another connection, or of another level, fails on
// its own), sends the status items and the budget items to the network in separate groups, and
// records each outcome. ctx's deadline bounds the reads before the sending; the network calls
// have their own bounds (netclient's timeouts and retries), and the recording its StoreTimeout,
// so that changes a network applied are recorded however long it took to apply them.
func (o *Objects) Apply(ctx context.Context, c platform.Connection, in ObjectsInput, actor Actor) (ObjectsResult, error) {
	items, err := in.validate()
	if err != nil {
		return ObjectsResult{}, err
	}
	if c.Kind != platform.KindAlpha && c.Kind != platform.KindBeta && c.Kind != platform.KindGamma {
		return ObjectsResult{}, apperr.Invalid("This connection has no ad objects.", "connection_id: a "+c.Kind+" connection is not an ad network")
	}
	conn, err := o.Connectors(c)
	if errors.Is(err, ErrNoCredentials) {
		return ObjectsResult{}, apperr.Invalid("This connection cannot be written to: it has no API base URL, access token or account id.",
			"connection_id: the connection has no API base URL, access token or account id to reach its network")
	}
	if err != nil {
		return ObjectsResult{}, err
	}
	stored, err := o.Store.Objects(ctx, c.ID)
	if err != nil {
		return ObjectsResult{}, err
	}
	res := ObjectsResult{Results: make([]ItemResult, len(items))}
	var statusIdx, budgetIdx []int
	var statusUps, budgetUps []Update
	for i, it := range items {
		res.Results[i].ID = it.id
		obj, ok := stored[it.id]
		switch {
		case !ok:
			res.Results[i].Error = fmt.Sprintf("no %s %s in this connection", in.Type, it.id)
		case obj.Level != in.Type:
			res.Results[i].Error = fmt.Sprintf("%s is a %s, not a %s", it.id, obj.Level, in.Type)
		case it.status != "":
			statusIdx, statusUps = append(statusIdx, i), append(statusUps, Update{Object: obj, Status: it.status})
		case obj.BudgetKind == "":
			res.Results[i].Error = fmt.Sprintf("%s holds no budget (its campaign or ad sets do)", it.id)
		default:
			budgetIdx, budgetUps = append(budgetIdx, i), append(budgetUps, Update{Object: obj, Budget: it.budget})
		}
	}
	var audit []sentUpdate
	sending := context.WithoutCancel(ctx)
	if len(statusUps) > 0 {
		audit = append(audit, o.outcomes(res.Results, statusIdx, statusUps, conn.SetStatus(sending, in.Type, statusUps))...)
	}
	if len(budgetUps) > 0 {
		audit = append(audit, o.outcomes(res.Results, budgetIdx, budgetUps, conn.SetBudget(sending, in.Type, budgetUps))...)
	}
	for _, r := range res.Results {
		if r.OK {
			res.Summary.Updated++
		} else {
			res.Summary.Failed++
		}
	}
	res.Success = res.Summary.Failed == 0
	timeout := o.StoreTimeout
	if timeout <= 0 {
		timeout = config.DefaultStoreTimeout
	}
	rctx, cancel := context.WithTimeout(sending, timeout)
	defer cancel()
	return res, o.Store.recordChanges(rctx, c.ID, in.Type, actor, audit, o.Clock.Now())
}

// sentUpdate is one sent update with its outcome, for the audit trail and the stored objects.
type sentUpdate struct {
	Update
	err error
}

func (o *Objects) outcomes(results []ItemResult, idx []int, ups []Update, errs []error) []sentUpdate {
	out := make([]sentUpdate, len(ups))
	for j, i := range idx {
		out[j] = sentUpdate{Update: ups[j], err: errs[j]}
		if errs[j] != nil {
			results[i].Error = errs[j].Error()
		} else {
			results[i].OK = true
		}
	}
	return out
}

// field, before and after of an audited change; budgets in cents.
func (c sentUpdate) values() (field, before, after string) {
	if c.Status != "" {
		return "status", c.Object.Status, c.Status
	}
	return "budget", strconv.FormatInt(c.Object.BudgetMicros/facts.MicrosPerMinor, 10), strconv.FormatInt(c.Budget, 10)
}

// recordChanges writes the audit trail and makes the stored objects follow the successes.
func (s *Store) recordChanges(ctx context.Context, connectionID, level string, actor Actor, changes []sentUpdate, at time.Time) error {
	b := &pgx.Batch{}
	for _, c := range changes {
		field, before, after := c.values()
		var errText *string
		if c.err != nil {
			msg := c.err.Error()
			errText = &msg
		}
		b.Queue(`INSERT INTO object_changes (connection_id, object_id, level, field, before_value, after_value, ok, error,
			actor_kind, actor_id, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			connectionID, c.Object.ID, level, field, before, after, c.err == nil, errText, actor.Kind, actor.ID, at)
		if c.err != nil {
			continue
		}
		if c.Status != "" {
			b.Queue(`UPDATE ad_objects SET status = $3, updated_at = $4 WHERE connection_id = $1 AND id = $2`, connectionID, c.Object.ID, c.Status, at)
		} else {
			b.Queue(`UPDATE ad_objects SET budget_micros = $3, updated_at = $4 WHERE connection_id = $1 AND id = $2`,
				connectionID, c.Object.ID, c.Budget*facts.MicrosPerMinor, at)
		}
	}
	return s.pool.SendBatch(ctx, b).Close()
}

// Change is one line of the audit trail.
type Change struct {
	ObjectID, Level, Field, Before, After string
	OK                                    bool
	Error                                 *string
	ActorKind, ActorID                    string
	At                                    time.Time
}

// Changes lists a connection's audit trail, oldest first.
func (s *Store) Changes(ctx context.Context, connectionID string) ([]Change, error) {
	rows, err := s.pool.Query(ctx, `SELECT object_id, level, field, before_value, after_value, ok, error, actor_kind, actor_id, created_at
		FROM object_changes WHERE connection_id = $1 ORDER BY id`, connectionID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Change, error) {
		var c Change
		err := r.Scan(&c.ObjectID, &c.Level, &c.Field, &c.Before, &c.After, &c.OK, &c.Error, &c.ActorKind, &c.ActorID, &c.At)
		return c, err
	})
}
