package api

import (
	"github.com/gofiber/fiber/v2"

	"mtk/engine"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// queryResponse is the answer of POST /v3/query.
type queryResponse struct {
	Success  bool         `json:"success"`
	Data     []engine.Row `json:"data"`
	Currency string       `json:"currency"`
	Warnings []string     `json:"warnings"`
	HasMore  bool         `json:"has_more"`
}

// query answers POST /v3/query: the body is validated first (so that a missing project_id is a
// 400), then the project must be the caller's workspace's (403 access_denied otherwise; 404 when
// it does not exist).
func (s *server) query(c *fiber.Ctx) error {
	var in engine.QueryInput
	if err := decodeJSON(c, &in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return err
	}
	scope, err := s.queryScope(c, in.ProjectID)
	if err != nil {
		return err
	}
	res, err := s.engine.Query(c.UserContext(), scope, in)
	if err != nil {
		return err
	}
	return c.JSON(queryResponse{Success: true, Data: res.Data, Currency: res.Currency, Warnings: res.Warnings, HasMore: res.HasMore})
}

// queryScope resolves what the engine needs to know of the project from PostgreSQL.
func (s *server) queryScope(c *fiber.Ctx, projectID string) (engine.Scope, error) {
	p := auth.From(c)
	project, err := s.platform.Project(c.UserContext(), projectID)
	if err != nil {
		return engine.Scope{}, err
	}
	if project.WorkspaceID != p.WorkspaceID {
		return engine.Scope{}, apperr.Forbidden(apperr.CodeAccessDenied, "You do not have access to this project.")
	}
	conns, err := s.platform.ListConnections(c.UserContext(), project.ID)
	if err != nil {
		return engine.Scope{}, err
	}
	ids := make([]string, len(conns))
	for i, conn := range conns {
		ids[i] = conn.ID
	}
	tier := p.Tier
	if tier == "" {
		tier = platform.TierDefault
	}
	return engine.Scope{ProjectID: project.ID, Currency: project.Currency, TimeZone: project.Timezone, Tier: tier, ConnectionIDs: ids}, nil
}

// fields answers GET /v3/fields[?source=]: the metrics and dimensions a query may use.
func (s *server) fields(c *fiber.Ctx) error {
	list, err := engine.Fields(c.Query("source"))
	if err != nil {
		return err
	}
	return c.JSON(list)
}
