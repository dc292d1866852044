package api

import (
	"bytes"
	"strings"

	"github.com/gofiber/fiber/v2"

	"mtk/answers"
	"mtk/engine"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// query answers POST /v3/query (queryRequest says what is checked first) through the answers
// service: an answer kept at the same data version is sent again as it was, `Cache-Control:
// no-cache` reads afresh, and an If-None-Match naming the answer's tag gets 304.
func (s *server) query(c *fiber.Ctx) error {
	start := requestStart(c)
	scope, in, err := s.queryRequest(c)
	if err != nil {
		return err
	}
	a, err := s.Answers.Query(c.UserContext(), answers.Request{Scope: scope, Input: in, Start: start,
		IfNoneMatch: c.Get(fiber.HeaderIfNoneMatch),
		Fresh:       strings.Contains(strings.ToLower(c.Get(fiber.HeaderCacheControl)), "no-cache")})
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	if a.ETag != "" {
		c.Set(fiber.HeaderETag, a.ETag)
	}
	c.Set(headerServerTiming, a.ServerTiming)
	c.Status(a.Status)
	return c.Send(a.Body)
}

// headerServerTiming tells where a query's time went (answers.Answer.ServerTiming).
const headerServerTiming = "Server-Timing"

// explain answers POST /v3/query/explain: how the query of the same body would be answered, and
// whether the answer cache holds its answer now (answers.Service.Explain).
func (s *server) explain(c *fiber.Ctx) error {
	scope, in, err := s.queryRequest(c)
	if err != nil {
		return err
	}
	body, err := s.Answers.Explain(c.UserContext(), scope, in)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

// queryRequest reads and validates a query body (so that a missing project_id is a 400) and
// checks that the project is the caller's workspace's (403 access_denied otherwise; 404 when it
// does not exist). A body already read is not decoded again (queryBodies).
func (s *server) queryRequest(c *fiber.Ctx) (engine.Scope, engine.QueryInput, error) {
	in, err := s.queryInput(c)
	if err != nil {
		return engine.Scope{}, engine.QueryInput{}, err
	}
	scope, err := s.queryScope(c, in.ProjectID)
	if err != nil {
		return engine.Scope{}, engine.QueryInput{}, err
	}
	return scope, in, nil
}

// queryInput is the checked query of the request's body, from queryBodies when the same bytes
// were read before.
func (s *server) queryInput(c *fiber.Ctx) (engine.QueryInput, error) {
	raw := bytes.TrimSpace(c.Body())
	if in, ok := s.queryBodies.get(raw); ok {
		return in, nil
	}
	var body engine.QueryInput
	if err := decodeJSON(c, &body); err != nil {
		return engine.QueryInput{}, err
	}
	in, err := body.Check()
	if err != nil {
		return engine.QueryInput{}, err
	}
	s.queryBodies.put(raw, in)
	return in, nil
}

// queryScope resolves what the engine needs to know of the project from PostgreSQL.
func (s *server) queryScope(c *fiber.Ctx, projectID string) (engine.Scope, error) {
	p := auth.From(c)
	project, err := s.Projects.ProjectScope(c.UserContext(), projectID)
	if err != nil {
		return engine.Scope{}, err
	}
	if project.WorkspaceID != p.WorkspaceID {
		return engine.Scope{}, apperr.Forbidden(apperr.CodeAccessDenied, "You do not have access to this project.")
	}
	return engine.Scope{ProjectID: project.ID, Currency: project.Currency, TimeZone: project.Timezone,
		SubHour: platform.SubHourGranularities(p.Tier), ConnectionIDs: project.ConnectionIDs, PairsPending: project.PairsPending}, nil
}

// fields answers GET /v3/fields[?source=]: the metrics and dimensions a query may use.
func (s *server) fields(c *fiber.Ctx) error {
	list, err := engine.Fields(c.Query("source"))
	if err != nil {
		return err
	}
	return c.JSON(list)
}
