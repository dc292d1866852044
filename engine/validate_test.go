package engine_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"mtk/engine"
	"mtk/internal/apperr"
)

func TestValidationRules(t *testing.T) {
	const ok = `"project_id":"prj_1","fields":["spend"]`
	cases := []struct {
		name   string
		body   string
		code   string
		detail string
	}{
		{"missing project_id", `{"fields":["spend"]}`, apperr.CodeInvalidParameter, "project_id: required"},
		{"other project", `{"project_id":"prj_2","fields":["spend"]}`, apperr.CodeInvalidParameter, `project_id: unknown project "prj_2"`},
		{"no fields", `{"project_id":"prj_1"}`, apperr.CodeMissingParameter, "fields: required"},
		{"empty fields", `{"project_id":"prj_1","fields":[]}`, apperr.CodeInvalidParameter, "fields: at least one metric is required"},
		{"unknown metric", `{"project_id":"prj_1","fields":["spend","clicks","foo"]}`, apperr.CodeInvalidParameter, `fields[2]: unknown metric "foo"`},
		{"duplicate metric", `{"project_id":"prj_1","fields":["spend","spend"]}`, apperr.CodeInvalidParameter, `fields[1]: duplicate metric "spend"`},
		{"unknown source", `{` + ok + `,"source":"delta_ads"}`, apperr.CodeInvalidSource, `source: unknown source "delta_ads"; want one of alpha_ads, beta_ads, gamma_ads`},
		{"connection of another project", `{` + ok + `,"connection_ids":["con_a","con_x"]}`, apperr.CodeInvalidParameter, `connection_ids[1]: unknown connection "con_x" for this project`},
		{"empty connection id", `{` + ok + `,"connection_ids":[""]}`, apperr.CodeInvalidParameter, "connection_ids[0]: empty"},
		{"limit 0", `{` + ok + `,"limit":0}`, apperr.CodeInvalidParameter, "limit: must be between 1 and 50000"},
		{"limit too big", `{` + ok + `,"limit":50001}`, apperr.CodeInvalidParameter, "limit: must be between 1 and 50000"},
		{"negative offset", `{` + ok + `,"offset":-1}`, apperr.CodeInvalidParameter, "offset: must be 0 or more"},
		{"time without start", `{` + ok + `,"time":{"end":"2024-03-01"}}`, apperr.CodeMissingParameter, "time.start: required"},
		{"time without end", `{` + ok + `,"time":{"start":"2024-03-01"}}`, apperr.CodeMissingParameter, "time.end: required"},
		{"bad date", `{` + ok + `,"time":{"start":"01/03/2024","end":"2024-03-02"}}`, apperr.CodeInvalidParameter, `time.start: want YYYY-MM-DD or an ISO 8601 date-time, got "01/03/2024"`},
		{"end before start", `{` + ok + `,"time":{"start":"2024-03-02","end":"2024-03-01"}}`, apperr.CodeInvalidParameter, "time.end: must be after time.start"},
		{"datetime end equal to start", `{` + ok + `,"time":{"start":"2024-03-02T10:00:00Z","end":"2024-03-02T10:00:00Z"}}`, apperr.CodeInvalidParameter, "time.end: must be after time.start"},
		{"unknown granularity", `{` + ok + `,"time":{"start":"2024-03-01","end":"2024-03-02","granularity":"minute"}}`, apperr.CodeInvalidParameter, `time.granularity: unknown granularity "minute"`},
		{"range too long for 5min", `{` + ok + `,"time":{"start":"2020-01-01","end":"2024-03-02","granularity":"5min"}}`, apperr.CodeInvalidParameter, "time: range too long for granularity 5min"},
		{"unknown level", `{` + ok + `,"metadata":{"level":"keyword"}}`, apperr.CodeInvalidParameter, `metadata.level: unknown level "keyword"`},
		{"unknown currency", `{` + ok + `,"metadata":{"convert_to_currency":"XYZ"}}`, apperr.CodeInvalidParameter, `metadata.convert_to_currency: unknown currency "XYZ"`},
		{"lower-case currency", `{` + ok + `,"metadata":{"convert_to_currency":"usd"}}`, apperr.CodeInvalidParameter, `metadata.convert_to_currency: unknown currency "usd"`},
		{"filter without member", `{` + ok + `,"filters":[{"operator":"equals","values":["x"]}]}`, apperr.CodeMissingParameter, "filters[0].member: required"},
		{"filter unknown member", `{` + ok + `,"filters":[{"member":"country","operator":"equals","values":["x"]}]}`, apperr.CodeInvalidParameter, `filters[0].member: unknown member "country"`},
		{"filter unknown operator", `{` + ok + `,"filters":[{"member":"source","operator":"like","values":["x"]}]}`, apperr.CodeInvalidParameter, `filters[0].operator: unknown operator "like"`},
		{"filter without operator", `{` + ok + `,"filters":[{"member":"source","values":["x"]}]}`, apperr.CodeMissingParameter, "filters[0].operator: required"},
		{"filter without values", `{` + ok + `,"filters":[{"member":"source","operator":"equals"}]}`, apperr.CodeInvalidParameter, `filters[0].values: required for operator "equals"`},
		{"set with values", `{` + ok + `,"filters":[{"member":"source","operator":"set","values":["x"]}]}`, apperr.CodeInvalidParameter, `filters[0].values: must be empty for operator "set"`},
		{"string operator on metric", `{` + ok + `,"filters":[{"member":"spend","operator":"contains","values":["1"]}]}`, apperr.CodeInvalidParameter, `filters[0].operator: "contains" does not apply to metric "spend"`},
		{"number operator on dimension", `{` + ok + `,"filters":[{"member":"campaign_id","operator":"gt","values":["1"]}]}`, apperr.CodeInvalidParameter, `filters[0].operator: "gt" does not apply to dimension "campaign_id"`},
		{"metric value not a number", `{` + ok + `,"filters":[{"member":"spend","operator":"gt","values":["10","NaN"]}]}`, apperr.CodeInvalidParameter, `filters[0].values[1]: want a number, got "NaN"`},
		{"order by unknown key", `{` + ok + `,"order":{"clicks":"desc"}}`, apperr.CodeInvalidParameter, "order.clicks: not a field or key of the rows"},
		{"order by date without granularity", `{` + ok + `,"order":{"date":"asc"}}`, apperr.CodeInvalidParameter, "order.date: not a field or key of the rows"},
		{"unknown attribution member", `{` + ok + `,"metadata":{"attribution":{"model":"linear","windows":7}}}`, apperr.CodeInvalidParameter,
			"metadata.attribution.windows: unknown member; want one of model, window_days, date"},
		{"unknown touch set", `{` + ok + `,"metadata":{"attribution":{"model":"linear","touches":"paid"}}}`, apperr.CodeInvalidParameter,
			`metadata.attribution.touches: unknown touch set "paid"; want one of ads, all`},
		{"reported with all touches in the ad view", `{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"attribution":{"touches":"all"}}}`,
			apperr.CodeInvalidParameter, `metadata.attribution.touches: the reported model counts the touches of the "ads" view ("ads")`},
		{"reported with ad touches in the traffic view", `{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"dimensions":[],` +
			`"attribution":{"model":"reported","touches":"ads"}}}`, apperr.CodeInvalidParameter,
			`metadata.attribution.touches: the reported model counts the touches of the "traffic" view ("all")`},
		{"model with an order dimension", `{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"dimensions":["utm_source","product_name"],` +
			`"attribution":{"model":"linear"}}}`, apperr.CodeInvalidParameter,
			`metadata.dimensions[1]: dimension "product_name" is an order's, and models credit touches`},
		{"model with an order dimension filter", `{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"attribution":{"model":"first_click"}},` +
			`"filters":[{"member":"customer_type","operator":"equals","values":["new"]}]}`, apperr.CodeInvalidParameter,
			`filters[0].member: dimension "customer_type" is an order's, and models credit touches`},
		{"model with net revenue in the traffic view", `{"project_id":"prj_1","fields":["tx_revenue"],"metadata":{"dimensions":["utm_source"],` +
			`"revenue":"net","attribution":{"model":"linear"}}}`, apperr.CodeInvalidParameter,
			`metadata.attribution.model: metadata.revenue "net" is answered with the reported model only`},
		{"order direction", `{` + ok + `,"order":{"spend":"up"}}`, apperr.CodeInvalidParameter, `order.spend: want "asc" or "desc", got "up"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := engine.Compile(testScope, mustInput(t, tc.body), testNow)
			e, isApp := apperr.As(err)
			if !isApp {
				t.Fatalf("err %v, want an *apperr.Error", err)
			}
			if e.Status != 400 || e.Type != apperr.TypeValidation || e.Code != tc.code {
				t.Fatalf("%d %s %s, want 400 validation_error %s", e.Status, e.Type, e.Code, tc.code)
			}
			found := false
			for _, d := range e.Details {
				found = found || strings.HasPrefix(d, tc.detail)
			}
			if !found {
				t.Fatalf("details %q lack %q", e.Details, tc.detail)
			}
		})
	}
}

func TestValidationListsEveryProblem(t *testing.T) {
	in := mustInput(t, `{"fields":["foo"],"source":"x","limit":0}`)
	e := in.Validate()
	if e == nil || e.Code != apperr.CodeInvalidSource || !strings.Contains(e.Message, "alpha_ads, beta_ads, gamma_ads") {
		t.Fatalf("%v", e)
	}
	if len(e.Details) != 4 {
		t.Fatalf("details %q, want one per problem", e.Details)
	}
}

// A body with wrong and missing members lists both, the wrong ones first, as invalid_parameter;
// one with missing members only is missing_parameter.
func TestValidationMissingAndWrong(t *testing.T) {
	e := mustInput(t, `{"project_id":"prj_1","time":{"start":"2024-03-01"},"limit":0,"filters":[{"member":"source"}]}`).Validate()
	want := `[limit: must be between 1 and 50000 fields: required; list at least one metric time.end: required filters[0].operator: required]`
	if e == nil || e.Code != apperr.CodeInvalidParameter || fmt.Sprint(e.Details) != want {
		t.Fatalf("%v, want details %s", e, want)
	}
	e = mustInput(t, `{"project_id":"prj_1","time":{"start":"2024-03-01"}}`).Validate()
	if e == nil || e.Code != apperr.CodeMissingParameter || fmt.Sprint(e.Details) != `[fields: required; list at least one metric time.end: required]` {
		t.Fatalf("%v", e)
	}
}

func TestValidQueriesPass(t *testing.T) {
	for _, body := range []string{
		`{"project_id":"prj_1","fields":["spend"]}`,
		`{"project_id":"prj_1","fields":["spend","ctr"],"source":"beta_ads","connection_ids":["con_b"],
			"time":{"start":"2024-03-01T10:00:00","end":"2024-03-01 12:30","granularity":"10min"},
			"filters":[{"member":"ad_name","operator":"startsWith","values":["a","b"]},{"member":"ctr","operator":"gte","values":["0.5","1e-3"]},{"member":"account_id","operator":"notSet"}],
			"order":{"ctr":"desc","date":"asc","ad_name":"asc"},"limit":50000,"offset":0,"metadata":{"level":"ad","convert_to_currency":"EUR"}}`,
		`{"project_id":"prj_1","fields":["roi"],"time":{"start":"2024-03-01T10:00:00.000+05:30","end":"2024-03-01"}}`,
	} {
		if _, err := engine.Compile(testScope, mustInput(t, body), testNow); err != nil {
			t.Errorf("%s: %v", body, err)
		}
	}
}

func TestBadScopeIsInternal(t *testing.T) {
	for _, s := range []engine.Scope{
		{ProjectID: "prj_1", Currency: "BRL", TimeZone: "Mars/Base"},
		{ProjectID: "prj_1", Currency: "BRL", TimeZone: "UTC'; DROP TABLE x"},
		{ProjectID: "prj_1", Currency: "BRL", TimeZone: "Local"},
		{ProjectID: "prj_1", Currency: "ZZZ", TimeZone: "UTC"},
	} {
		_, err := engine.Compile(s, mustInput(t, `{"project_id":"prj_1","fields":["spend"]}`), testNow)
		if _, isApp := apperr.As(err); err == nil || isApp {
			t.Errorf("scope %+v: err %v, want an internal error", s, err)
		}
	}
}

// Check marks an input valid once, so that the engine does not validate it again; an invalid one
// keeps Validate's error.
func TestCheckValidatesOnce(t *testing.T) {
	in, err := mustInput(t, `{"project_id":"prj_1","fields":["spend"]}`).Check()
	if err != nil {
		t.Fatal(err)
	}
	if again, err := in.Check(); err != nil || !reflect.DeepEqual(again, in) {
		t.Fatalf("checked twice: %+v %v", again, err)
	}
	if _, err := mustInput(t, `{"fields":["spend"]}`).Check(); err == nil {
		t.Fatal("an input without project_id passed Check")
	}
}
