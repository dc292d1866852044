package api

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"mtk/engine"
	"mtk/facts"
	"mtk/internal/apperr"
	"mtk/internal/auth"
	"mtk/platform"
)

// query answers POST /v3/query (prepareQuery says what is checked first). An answer kept by the
// answer cache for the same query at the same data version is sent again as it was (see
// answerTag); `Cache-Control: no-cache` reads afresh, and an If-None-Match naming the answer's
// tag gets 304 without reading anything.
func (s *server) query(c *fiber.Ctx) error {
	start := time.Now()
	q, err := s.prepareQuery(c)
	if err != nil {
		return err
	}
	prep, version, known := q.prep, q.version, q.known
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	var key string
	if known {
		key = prep.Key()
		tag := answerTag(key)
		if c.Get(fiber.HeaderIfNoneMatch) == tag { // the answer at this version is the one the caller has
			c.Set(fiber.HeaderETag, tag)
			c.Set(headerServerTiming, serverTiming(0, time.Since(start), true))
			return c.SendStatus(fiber.StatusNotModified)
		}
		fresh := strings.Contains(strings.ToLower(c.Get(fiber.HeaderCacheControl)), "no-cache")
		if !fresh {
			if answer, ok := s.answers.Get(key); ok {
				c.Set(fiber.HeaderETag, tag)
				c.Set(headerServerTiming, serverTiming(0, time.Since(start), true))
				return c.Send(answer)
			}
		}
	}
	var timing engine.Timing
	res, err := s.engine.Run(engine.WithTiming(c.UserContext(), &timing), prep)
	if err != nil {
		return err
	}
	answer, err := queryBody(res)
	if err != nil {
		return err
	}
	// An answer is kept and tagged only when no move of its versions was heard while it was
	// read: one that was may hold the new data under the old version.
	if known {
		if after, still, err := s.version(c, q.projectID, prep); err == nil && still && after == version {
			s.answers.Put(key, answer)
			c.Set(fiber.HeaderETag, answerTag(key))
		}
	}
	c.Set(headerServerTiming, serverTiming(timing.DB(), time.Since(start), false))
	return c.Send(answer)
}

// explain answers POST /v3/query/explain: how the query of the same body would be answered
// (engine.Explain), and whether the answer cache holds its answer now; the answer statement is
// not run.
func (s *server) explain(c *fiber.Ctx) error {
	q, err := s.prepareQuery(c)
	if err != nil {
		return err
	}
	prep, known := q.prep, q.known
	ex, err := s.engine.Explain(c.UserContext(), prep)
	if err != nil {
		return err
	}
	switch {
	case !known:
		ex.Cache = "off"
	case s.answers.Has(prep.Key()):
		ex.Cache = "hit"
	default:
		ex.Cache = "miss"
	}
	return c.JSON(ex)
}

// preparedQuery is a query body prepared for its project, at the data version of what it reads
// when that is known (then prep is At it).
type preparedQuery struct {
	prep      *engine.Prepared
	projectID string
	version   facts.Version
	known     bool
}

// prepareQuery reads and validates a query body (so that a missing project_id is a 400), checks
// that the project is the caller's workspace's (403 access_denied otherwise; 404 when it does not
// exist), prepares it and reads its data version.
func (s *server) prepareQuery(c *fiber.Ctx) (preparedQuery, error) {
	var body engine.QueryInput
	if err := decodeJSON(c, &body); err != nil {
		return preparedQuery{}, err
	}
	in, err := body.Check()
	if err != nil {
		return preparedQuery{}, err
	}
	scope, err := s.queryScope(c, in.ProjectID)
	if err != nil {
		return preparedQuery{}, err
	}
	prep, err := s.engine.Prepare(scope, in)
	if err != nil {
		return preparedQuery{}, err
	}
	version, known, err := s.version(c, scope.ProjectID, prep)
	if err != nil {
		return preparedQuery{}, err
	}
	if known {
		prep = prep.At(version)
	}
	return preparedQuery{prep: prep, projectID: scope.ProjectID, version: version, known: known}, nil
}

// version is the data version of the days prep reads, and false when answers are not cached
// or versions are unknown (then the answer is read, neither kept nor tagged).
func (s *server) version(c *fiber.Ctx, projectID string, prep *engine.Prepared) (facts.Version, bool, error) {
	if s.answers == nil {
		return 0, false, nil
	}
	var version facts.Version
	for _, days := range prep.Days() { // a sum of sums still only grows
		v, known, err := s.versions.Of(c.UserContext(), projectID, days.First, days.After)
		if err != nil || !known {
			return 0, false, err
		}
		version += v
	}
	return version, true, nil
}

// answerTag is an answer's ETag: equal tags are answers to the same query at the same data
// version, whose bytes are equal, except in the milliseconds between a write landing in
// ClickHouse and its version move reaching this server (a read then sees the new data at the
// old version: see the README's answer cache).
func answerTag(key string) string {
	sum := sha256.Sum256([]byte(key))
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// headerServerTiming tells where a query's time went (W3C Server-Timing): db is the time its
// ClickHouse statements took (sent, run and read; not the wait for a query slot; 0 for a cached
// answer), total the server's whole handling, from reading the body to the encoded answer;
// cache says whether the answer came from the answer cache (hit) or was read (miss).
const headerServerTiming = "Server-Timing"

func serverTiming(db, total time.Duration, hit bool) string {
	ms := func(d time.Duration) string {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 2, 64)
	}
	cache := "miss"
	if hit {
		cache = "hit"
	}
	return "db;dur=" + ms(db) + ", total;dur=" + ms(total) + ", cache;desc=" + cache
}

// queryBody is the answer of POST /v3/query: {success, data, currency, warnings, has_more,
// total_rows (asked with total), time (a named range's dates), compare_time}. The
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
		Currency    string        `json:"currency"`
		Warnings    []string      `json:"warnings"`
		HasMore     bool          `json:"has_more"`
		TotalRows   *uint64       `json:"total_rows,omitempty"`
		Time        *engine.Dates `json:"time,omitempty"`
		CompareTime *engine.Dates `json:"compare_time,omitempty"`
	}{res.Currency, res.Warnings, res.HasMore, res.TotalRows, res.Time, res.CompareTime})
	if err != nil {
		return nil, err
	}
	b = append(b, "],"...)
	return append(b, rest[1:]...), nil
}

// queryScope resolves what the engine needs to know of the project from PostgreSQL.
func (s *server) queryScope(c *fiber.Ctx, projectID string) (engine.Scope, error) {
	p := auth.From(c)
	project, err := s.platform.Projects.ProjectScope(c.UserContext(), projectID)
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
