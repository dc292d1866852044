package platform

import (
	"context"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The trigger list's paging, as the contract sets it.
const (
	DefaultTriggerLimit = 50
	MaxTriggerLimit     = 100
)

// TriggerQuery selects one page of a container's triggers, oldest first. Make it with
// NewTriggerQuery.
type TriggerQuery struct {
	Page  int    // from 1
	Limit int    // 1 to MaxTriggerLimit
	Type  string // one of TriggerTypes; empty means every type
}

// NewTriggerQuery reads the list's query parameters page, limit and type, each nil when absent:
// page defaults to 1, limit to DefaultTriggerLimit. A present parameter must be valid, even empty.
func NewTriggerQuery(page, limit, typ *string) (TriggerQuery, error) {
	q := TriggerQuery{Page: 1, Limit: DefaultTriggerLimit}
	var p problems
	if page != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*page))
		if err != nil || n < 1 {
			p.bad("page", "%q is not an integer of at least 1", *page)
		}
		q.Page = n
	}
	if limit != nil {
		n, err := strconv.Atoi(strings.TrimSpace(*limit))
		if err != nil || n < 1 || n > MaxTriggerLimit {
			p.bad("limit", "%q is not an integer from 1 to %d", *limit, MaxTriggerLimit)
		}
		q.Limit = n
	}
	if typ != nil {
		if !ValidTriggerType(*typ) {
			p.bad("type", "%q is not a trigger type (%s)", *typ, strings.Join(TriggerTypes, ", "))
		}
		q.Type = *typ
	}
	return q, p.err("Invalid query parameter.")
}

// Pagination describes one page of a list. TotalPages is 0 for an empty list.
type Pagination struct {
	Page       int `json:"page"`
	Limit      int `json:"limit"`
	Total      int `json:"total"`
	TotalPages int `json:"total_pages"`
}

// TriggerPage is one page of triggers.
type TriggerPage struct {
	Data       []Trigger  `json:"data"`
	Pagination Pagination `json:"pagination"`
}

// ListTriggers returns one page of the triggers of a workspace's container, oldest first. A page
// past the last is empty.
func (s *Containers) ListTriggers(ctx context.Context, workspaceID, containerRef string, q TriggerQuery) (TriggerPage, error) {
	out := TriggerPage{Data: []Trigger{}, Pagination: Pagination{Page: q.Page, Limit: q.Limit}}
	cid, err := s.containerID(ctx, workspaceID, containerRef)
	if err != nil {
		return out, err
	}
	const filter = " WHERE t.container_id = $1 AND ($2 = '' OR t.trigger_type = $2)"
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM triggers t"+filter, cid, q.Type).Scan(&out.Pagination.Total); err != nil {
		return out, err
	}
	out.Pagination.TotalPages = (out.Pagination.Total + q.Limit - 1) / q.Limit
	if q.Page > out.Pagination.TotalPages {
		return out, nil
	}
	rows, err := s.pool.Query(ctx, "SELECT "+triggerColumns+" FROM triggers t"+triggerJoin+filter+
		" ORDER BY t.created_at, t.id LIMIT $3 OFFSET $4", cid, q.Type, q.Limit, (q.Page-1)*q.Limit)
	if err != nil {
		return out, err
	}
	out.Data, err = pgx.CollectRows(rows, scanTrigger)
	return out, err
}

// ContainerTriggers returns every trigger of a container whose type is one of types, oldest first.
func (s *Containers) ContainerTriggers(ctx context.Context, containerID string, types []string) ([]Trigger, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+triggerColumns+" FROM triggers t"+triggerJoin+
		" WHERE t.container_id = $1 AND t.trigger_type = ANY ($2) ORDER BY t.created_at, t.id", containerID, types)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanTrigger)
}
