package api

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// routeKey is a route with handlers: its method and pattern.
type routeKey struct{ method, pattern string }

// routeLabels names the route of a request for metrics: the pattern of the route that answered
// it, never its raw path, so that the label's values are bounded. A request answered by a
// group's middleware before its route ran (a 401 or 429 under /v3) is named after the route it
// was for, found by matching its path against the patterns; one that no route takes (a 404 or
// 405) has none: "", which Metrics.Request counts as unmatched.
type routeLabels struct {
	handlers map[routeKey]bool
	ordered  []routePattern
}

type routePattern struct {
	method, pattern string
	segments        []string
}

// learn records the app's routes; call it once every route is registered.
func (r *routeLabels) learn(app *fiber.App) {
	r.handlers = map[routeKey]bool{}
	for _, rt := range app.GetRoutes(true) { // true: without the middleware of Use and Group
		r.handlers[routeKey{rt.Method, rt.Path}] = true
		r.ordered = append(r.ordered, routePattern{method: rt.Method, pattern: rt.Path, segments: splitPath(rt.Path)})
	}
}

// of is the route label of the request that c answered; method is methodLabel's.
func (r *routeLabels) of(c *fiber.Ctx, method string) string {
	if p := c.Route().Path; r.handlers[routeKey{method, p}] {
		return p
	}
	segs := splitPath(c.Path())
	for _, rt := range r.ordered {
		if rt.method == method && matchSegments(rt.segments, segs) {
			return rt.pattern
		}
	}
	return ""
}

// param names the parameter of the request's route that holds the path's i-th segment: the
// pattern's :name, or "path" where no route of method has a parameter there.
func (r *routeLabels) param(method string, path []string, i int) string {
	for _, rt := range r.ordered {
		if rt.method == method && matchSegments(rt.segments, path) && i < len(rt.segments) {
			if name, ok := strings.CutPrefix(rt.segments[i], ":"); ok {
				return name
			}
		}
	}
	return "path"
}

// splitPath is the segments of a path; a final slash makes an empty last one, which no route has.
func splitPath(p string) []string {
	return strings.Split(strings.TrimPrefix(p, "/"), "/")
}

// matchSegments matches a path against a pattern as the router does (exact, case-sensitive
// routing): literal segments exactly, a :param segment any non-empty segment, * the rest.
func matchSegments(pattern, path []string) bool {
	for i, seg := range pattern {
		if seg == "*" {
			return true
		}
		if i >= len(path) {
			return false
		}
		if strings.HasPrefix(seg, ":") {
			if path[i] == "" {
				return false
			}
			continue
		}
		if seg != path[i] {
			return false
		}
	}
	return len(pattern) == len(path)
}

// methodLabel is the request's method as a constant string (the context's aliases the request's
// buffer, and labels are kept), "other" for a method the router does not know.
func methodLabel(m string) string {
	for _, known := range fiber.DefaultMethods {
		if m == known {
			return known
		}
	}
	return "other"
}

// countRequests records every request's route, method, status and duration. It runs before
// logRequests, which renders errors, so the status is the one the client got.
func countRequests(m Metrics, routes *routeLabels) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := requestStart(c)
		err := c.Next()
		method := methodLabel(c.Method())
		m.Request(routes.of(c, method), method, c.Response().StatusCode(), time.Since(start))
		return err
	}
}
