package api_test

import (
	"fmt"
	"strings"
	"testing"
)

// Instants outside the supported ones (CONTRACT "Hostile input": what ClickHouse's DateTime
// holds) are a 400 naming the member, in a query's time, an event's timestamp and an order's
// created_at and updated_at. A query of 0001-01-01..9999-12-31 was a 500; 1969 or 2106
// answered rows labelled 1970-01-01.
func TestTimesOutsideSupportedInstants(t *testing.T) {
	e := newEnv(t)
	a := e.newTrackingTenant("acme", "act_111", "acme.example")
	read := a.readKey
	const supported = "(from 1970-01-02T00:00:00Z to before 2105-12-30T00:00:00Z)"
	query := func(tm string) string {
		return `{"project_id":"` + a.project.ID + `","fields":["spend","leads"],"time":` + tm + `}`
	}
	cases := []struct {
		name, path, body string
		headers          []string
		details          string
	}{
		{"a query of 0001-01-01 to 9999-12-31", "/v3/query", query(`{"start":"0001-01-01","end":"9999-12-31"}`), bearer(read),
			"[time.start: starts at 0001-01-01T03:06:28Z, before the supported instants " + supported +
				" time.end: ends at 10000-01-01T03:00:00Z, after the supported instants " + supported + "]"},
		{"a query of 1969", "/v3/query", query(`{"start":"1969-12-01","end":"1969-12-31","granularity":"day"}`), bearer(read),
			"[time.start: starts at 1969-12-01T03:00:00Z, before the supported instants " + supported + "]"},
		{"a query of 2106", "/v3/query", query(`{"start":"2106-01-01","end":"2106-01-31","granularity":"day"}`), bearer(read),
			"[time.end: ends at 2106-02-01T03:00:00Z, after the supported instants " + supported + "]"},
		{"an explained query of 2106", "/v3/query/explain", query(`{"start":"2106-01-01","end":"2106-01-31"}`), bearer(read),
			"[time.end: ends at 2106-02-01T03:00:00Z, after the supported instants " + supported + "]"},
		{"a comparison a year before 1970", "/v3/query", query(`{"start":"1970-03-01","end":"1970-03-31","compare":"previous_year"}`), bearer(read),
			"[time.compare: starts at 1969-03-01T03:00:00Z, before the supported instants " + supported + "]"},
		{"an event of 1969", "/v3/tracking/events", `{"config":{"name":"x"},"timestamp":-1}`, bearer(a.key),
			"[timestamp: Unix seconds within the last 90 days and at most 10 minutes ahead]"},
		{"an event of 2108", "/v3/tracking/events", `{"config":{"name":"x"},"timestamp":4354819200}`, bearer(a.key),
			"[timestamp: Unix seconds within the last 90 days and at most 10 minutes ahead]"},
	}
	order := func(created, updated string) string {
		return `{"transaction":{"id":"o1","status":"approved","value":100,"created_at":"` + created + `","updated_at":"` + updated + `"}}`
	}
	orders := "/v2/tracking/generic?k=" + a.custom.WebhookKey
	for _, o := range []struct{ name, created, updated, member string }{
		{"an order created in 1969", "1969-12-31T23:59:59Z", "2026-03-10T12:00:00Z", "created_at"},
		{"an order created in year 1", "0001-01-01T00:00:00Z", "2026-03-10T12:00:00Z", "created_at"},
		{"an order created on 1970-01-01", "1970-01-01T12:00:00Z", "2026-03-10T12:00:00Z", "created_at"},
		{"an order updated in 2106", "2026-03-10T12:00:00Z", "2106-01-01T00:00:00Z", "updated_at"},
		{"an order updated in 9999", "2026-03-10T12:00:00Z", "9999-12-31T23:59:59Z", "updated_at"},
	} {
		cases = append(cases, struct {
			name, path, body string
			headers          []string
			details          string
		}{o.name, orders, order(o.created, o.updated), nil, "[transaction." + o.member + ": must be " + supported[1:len(supported)-1] + "]"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errObj := wantError(t, e.do("POST", c.path, c.body, c.headers...), 400, "validation_error", "invalid_parameter")
			if got := fmt.Sprint(errObj["details"]); got != c.details {
				t.Fatalf("details\n got %s\nwant %s", got, c.details)
			}
		})
	}
	t.Run("the edges are taken", func(t *testing.T) {
		if r := e.do("POST", "/v3/query", query(`{"start":"1970-01-02T00:00:00Z","end":"2105-12-28","granularity":"year"}`), bearer(read)...); r.Status != 200 ||
			!strings.Contains(string(r.Body), `"date":"1970-01-01"`) || !strings.Contains(string(r.Body), `"date":"2105-01-01"`) {
			t.Fatalf("%d %.300s", r.Status, r.Body)
		}
		if r := e.do("POST", orders, order("1970-01-02T00:00:00Z", "2105-12-29T23:59:59Z"), nil...); r.Status != 200 {
			t.Fatalf("order at the edges: %d %s", r.Status, r.Body)
		}
	})
}
