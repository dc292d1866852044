package api

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/engine"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// query answers POST /v3/query: the body is validated first (so that a missing project_id is a
// 400), then the project must be the caller's workspace's (403 access_denied otherwise; 404 when
// it does not exist).
func (s *server) query(c *fiber.Ctx) error {
	start := time.Now()
	var body engine.QueryInput
	if err := decodeJSON(c, &body); err != nil {
		return err
	}
	in, err := body.Check()
	if err != nil {
		return err
	}
	scope, err := s.queryScope(c, in.ProjectID)
	if err != nil {
		return err
	}
	var timing engine.Timing
	res, err := s.engine.Query(engine.WithTiming(c.UserContext(), &timing), scope, in)
	if err != nil {
		return err
	}
	answer, err := queryBody(res)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(headerServerTiming, serverTiming(timing.DB(), time.Since(start)))
	return c.Send(answer)
}

// headerServerTiming tells where a query's time went (W3C Server-Timing): db is the time its
// ClickHouse statements took (sent, run and read; not the wait for a query slot), total the
// server's whole handling, from reading the body to the encoded answer; cache says whether the
// answer came from a cache (always miss: answers are not cached yet).
const headerServerTiming = "Server-Timing"

func serverTiming(db, total time.Duration) string {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
	}
	return "db;dur=" + ms(db) + ", total;dur=" + ms(total) + ", cache;desc=miss"
}

// queryBody is the answer of POST /v3/query: {success, data, currency, warnings, has_more}. The
// rows are appended by engine.Row.AppendJSON, since encoding/json would check again every byte a
// row's MarshalJSON wrote; the bytes are those encoding/json writes.
func queryBody(res *engine.Result) ([]byte, error) {
	// Rows of a level with names and a few metrics take about 250 bytes: one allocation.
	b := make([]byte, 0, 128+256*len(res.Data))
	b = append(b, `{"success":true,"data":[`...)
	for i, r := range res.Data {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = r.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	rest, err := marshalJSON(struct {
		Currency string   `json:"currency"`
		Warnings []string `json:"warnings"`
		HasMore  bool     `json:"has_more"`
	}{res.Currency, res.Warnings, res.HasMore})
	if err != nil {
		return nil, err
	}
	b = append(b, "],"...)
	return append(b, rest[1:]...), nil
}

// queryScope resolves what the engine needs to know of the project from PostgreSQL.
func (s *server) queryScope(c *fiber.Ctx, projectID string) (engine.Scope, error) {
	p := auth.From(c)
	project, err := s.platform.ProjectScope(c.UserContext(), projectID)
	if err != nil {
		return engine.Scope{}, err
	}
	if project.WorkspaceID != p.WorkspaceID {
		return engine.Scope{}, apperr.Forbidden(apperr.CodeAccessDenied, "You do not have access to this project.")
	}
	return engine.Scope{ProjectID: project.ID, Currency: project.Currency, TimeZone: project.Timezone,
		SubHour: platform.SubHourGranularities(p.Tier), ConnectionIDs: project.ConnectionIDs}, nil
}

// fields answers GET /v3/fields[?source=]: the metrics and dimensions a query may use.
func (s *server) fields(c *fiber.Ctx) error {
	list, err := engine.Fields(c.Query("source"))
	if err != nil {
		return err
	}
	return c.JSON(list)
}
