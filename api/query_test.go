package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/platform"
)

// seedFacts writes two weeks of generated facts for the tenant's project, ending the day before
// the test clock's day.
func (e *env) seedFacts(tn tenant) {
	e.t.Helper()
	loc, _ := time.LoadLocation(tn.project.Timezone)
	spec := enginetest.ProjectSpec{
		ID: tn.project.ID, TimeZone: tn.project.Timezone, Currency: tn.project.Currency,
		Start: e.clock.Now().In(loc).AddDate(0, 0, -14), Days: 14,
		AccountCurrencies: map[string]string{"beta_ads": "USD"},
		Connections:       map[string]string{"alpha_ads": tn.alpha.ID},
	}
	ds, err := enginetest.Generate(enginetest.Config{Seed: 7, Projects: []enginetest.ProjectSpec{spec}})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := ds.Write(context.Background(), e.ch); err != nil {
		e.t.Fatal(err)
	}
}

func TestQueryAnswersWhatTheEngineAnswers(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	e.seedFacts(tn)
	svc := engine.New(e.ch, engine.Options{Clock: e.clock})
	scope := engine.Scope{ProjectID: tn.project.ID, Currency: "BRL", TimeZone: "America/Sao_Paulo", SubHour: true,
		ConnectionIDs: []string{tn.alpha.ID, tn.custom.ID}}
	bodies := []string{
		`{"fields":["spend","impressions","clicks","ctr","cpc","cpm"],"time":{"start":"2026-03-01","end":"2026-03-07","granularity":"day"}}`,
		`{"fields":["spend","roas","profit","tx_revenue","tx_count"],"time":{"start":"2026-03-01","end":"2026-03-09"},"metadata":{"level":"campaign"}}`,
		`{"fields":["spend"],"time":{"start":"2026-03-05","end":"2026-03-06","granularity":"hour"},"source":"alpha_ads"}`,
		`{"fields":["impressions","reach","frequency"],"time":{"start":"2026-03-02T10:00:00","end":"2026-03-02T14:00:00","granularity":"15min"},"metadata":{"level":"ad"},"limit":5}`,
		`{"fields":["spend","cpa","aov"],"time":{"start":"2026-02-25","end":"2026-03-09","granularity":"week"},"metadata":{"convert_to_currency":"USD"}}`,
		`{"fields":["spend","leads","cpl"],"time":{"start":"2026-03-01","end":"2026-03-09"},"metadata":{"level":"adset"},"filters":[{"member":"campaign_name","operator":"contains","values":["summer"]},{"member":"spend","operator":"gt","values":["10"]}],"order":{"spend":"desc"},"limit":3,"offset":1}`,
		`{"fields":["hook_rate","hold_rate","play_rate","cta_rate"],"time":{"start":"2026-03-01","end":"2026-03-09","granularity":"month"},"connection_ids":["` + tn.alpha.ID + `"]}`,
	}
	for i, body := range bodies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var in engine.QueryInput
			if err := json.Unmarshal([]byte(body), &in); err != nil {
				t.Fatal(err)
			}
			in.ProjectID = tn.project.ID
			want, err := svc.Query(context.Background(), scope, in)
			if err != nil {
				t.Fatal(err)
			}
			r := e.do("POST", "/v3/query", in, bearer(tn.readKey)...)
			if r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
			var got struct {
				Success  bool            `json:"success"`
				Data     json.RawMessage `json:"data"`
				Currency string          `json:"currency"`
				Warnings []string        `json:"warnings"`
				HasMore  bool            `json:"has_more"`
			}
			if err := json.Unmarshal(r.Body, &got); err != nil {
				t.Fatal(err)
			}
			wantData, _ := json.Marshal(want.Data)
			if !got.Success || string(got.Data) != string(wantData) || got.Currency != want.Currency ||
				fmt.Sprint(got.Warnings) != fmt.Sprint(want.Warnings) || got.HasMore != want.HasMore {
				t.Fatalf("HTTP answer differs from the engine's:\n got %s\nwant %s", r.Body, wantData)
			}
			if strings.Contains(body, "granularity") && len(want.Data) == 0 {
				t.Fatal("a bucketed query came back empty")
			}
		})
	}
}

func TestQueryShape(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	e.seedFacts(tn)
	r := e.do("POST", "/v3/query", map[string]any{
		"project_id": tn.project.ID, "fields": []string{"spend", "ctr"},
		"time":     map[string]string{"start": "2026-03-01", "end": "2026-03-08"},
		"metadata": map[string]string{"level": "campaign"}, "limit": 2,
	}, bearer(tn.readKey)...)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	// Server-Timing: the statements' time within the whole, and no cache.
	var db, total float64
	if _, err := fmt.Sscanf(r.Header.Get("Server-Timing"), "db;dur=%g, total;dur=%g, cache;desc=miss", &db, &total); err != nil ||
		db <= 0 || total < db {
		t.Fatalf("Server-Timing %q: %v", r.Header.Get("Server-Timing"), err)
	}
	body := string(r.Body)
	if !strings.HasPrefix(body, `{"success":true,"data":[{"campaign_id":`) || !strings.Contains(body, `"campaign_name":`) ||
		!strings.Contains(body, `"currency":"BRL","view":"ads","warnings":[],"has_more":true}`) {
		t.Fatalf("shape: %s", body)
	}
	// Sub-hourly on the default tier answers at hour, with a warning.
	r = e.do("POST", "/v3/query", map[string]any{
		"project_id": tn.project.ID, "fields": []string{"spend"},
		"time": map[string]string{"start": "2026-03-02", "end": "2026-03-02", "granularity": "15min"},
	}, bearer(tn.readKey)...)
	res := r.JSON(t)
	warnings, _ := res["warnings"].([]any)
	if r.Status != 200 || len(warnings) != 1 || !strings.Contains(warnings[0].(string), "hour") || len(res["data"].([]any)) != 24 {
		t.Fatalf("default tier 15min: %d %s", r.Status, r.Body)
	}
}

func TestQueryValidation(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	other := e.newTenant("bolt", platform.TierGrowth, "act_222")
	q := func(extra string) string {
		return `{"project_id":"` + tn.project.ID + `","fields":["spend"]` + extra + `}`
	}
	cases := []struct {
		name, body string
		code       string
		detail     string
	}{
		{"missing project_id", `{"fields":["spend"]}`, "invalid_parameter", "project_id"},
		{"no fields", `{"project_id":"` + tn.project.ID + `"}`, "missing_parameter", "fields: required"},
		{"empty fields", `{"project_id":"` + tn.project.ID + `","fields":[]}`, "invalid_parameter", "fields"},
		{"no time.end", q(`,"time":{"start":"2026-03-01"}`), "missing_parameter", "time.end: required"},
		{"several wrong types", `{"project_id":"x","fields":["spend",7],"limit":"10","time":{"start":5,"end":"2026-03-02"}}`,
			"invalid_parameter", `[fields[1]: expected a string, got number 7 limit: expected an integer, got string time.start: expected a string, got number 5]`},
		{"unknown metric", q(`,"fields":["spend","foo"]`), "invalid_parameter", `fields[1]: unknown metric "foo"`},
		{"unknown source", q(`,"source":"delta_ads"`), "invalid_source", "source"},
		{"limit 0", q(`,"limit":0`), "invalid_parameter", "limit"},
		{"limit over 50000", q(`,"limit":50001`), "invalid_parameter", "limit"},
		{"negative offset", q(`,"offset":-1`), "invalid_parameter", "offset"},
		{"bad granularity", q(`,"time":{"start":"2026-03-01","end":"2026-03-02","granularity":"fortnight"}`), "invalid_parameter", "granularity"},
		{"end before start", q(`,"time":{"start":"2026-03-05","end":"2026-03-01"}`), "invalid_parameter", "time"},
		{"bad date", q(`,"time":{"start":"March 1","end":"2026-03-02"}`), "invalid_parameter", "time.start"},
		{"range and dates", q(`,"time":{"range":"last_7_days","start":"2026-03-01","end":"2026-03-02"}`), "invalid_parameter",
			"time.range: give either range or start and end, not both"},
		{"unknown comparison", q(`,"time":{"range":"last_7_days","compare":"last_week"}`), "invalid_parameter",
			`time.compare: unknown comparison "last_week"; want previous_period, previous_year or {start, end}`},
		{"comparison without end", q(`,"time":{"range":"last_7_days","compare":{"start":"2026-01-01"}}`), "missing_parameter", "time.compare.end: required"},
		{"comparison ending before it starts", q(`,"time":{"range":"last_7_days","compare":{"start":"2026-01-05","end":"2026-01-01"}}`),
			"invalid_parameter", "time.compare.end: must be after time.compare.start"},
		{"comparison of a bad date", q(`,"time":{"range":"last_7_days","compare":{"start":"Jan 1","end":"2026-01-01"}}`),
			"invalid_parameter", "time.compare.start: want YYYY-MM-DD"},
		{"comparison neither a name nor a period", q(`,"time":{"range":"last_7_days","compare":7}`), "invalid_parameter", "time.compare"},
		{"unknown range", q(`,"time":{"range":"last_week"}`), "invalid_parameter",
			`time.range: unknown range "last_week"; want one of today, yesterday, last_7_days, last_14_days, last_30_days, last_90_days, this_week, this_month, last_month, this_year`},
		{"bad level", q(`,"metadata":{"level":"keyword"}`), "invalid_parameter", "level"},
		{"bad currency", q(`,"metadata":{"convert_to_currency":"usd!"}`), "invalid_parameter", "convert_to_currency"},
		{"bad operator", q(`,"filters":[{"member":"campaign_name","operator":"like","values":["x"]}]`), "invalid_parameter", "filters[0]"},
		{"filter without values", q(`,"filters":[{"member":"campaign_name","operator":"equals"}]`), "invalid_parameter", "filters[0]"},
		{"unknown filter member", q(`,"filters":[{"member":"country","operator":"set"}]`), "invalid_parameter", "filters[0]"},
		{"bad order", q(`,"order":{"spend":"up"}`), "invalid_parameter", "order"},
		{"unknown attribution members", q(`,"metadata":{"attribution":{"model":"linear","windows":7,"lookback":1}}`), "invalid_parameter",
			"[metadata.attribution.lookback: unknown member; want one of model, window_days, date, touches metadata.attribution.windows: unknown member"},
		{"attribution member of the wrong type", q(`,"metadata":{"attribution":{"model":"linear","window_days":"7"}}`), "invalid_parameter",
			"[metadata.attribution.window_days: expected an integer, got string]"},
		{"attribution not an object", q(`,"metadata":{"attribution":7}`), "invalid_parameter", "[metadata.attribution: expected an object, got number"},
		{"fields not an array", `{"project_id":"x","fields":"spend"}`, "invalid_parameter", "fields"},
		{"another project's connection", q(`,"connection_ids":["` + other.alpha.ID + `"]`), "invalid_parameter", "connection_ids"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errObj := wantError(t, e.do("POST", "/v3/query", c.body, bearer(tn.readKey)...), 400, "validation_error", c.code)
			details := fmt.Sprint(errObj["details"])
			if !strings.Contains(details, c.detail) {
				t.Fatalf("details %s do not name %q", details, c.detail)
			}
			if c.code == "invalid_source" && !strings.Contains(errObj["message"].(string), "alpha_ads, beta_ads, gamma_ads") {
				t.Fatalf("message does not list the sources: %v", errObj["message"])
			}
		})
	}
	t.Run("malformed JSON", func(t *testing.T) {
		wantError(t, e.do("POST", "/v3/query", `{"project_id":`, bearer(tn.readKey)...), 400, "validation_error", "invalid_parameter")
	})
}

// TestQueryNamedRange: a named range answers what its dates written out answer, resolved in the
// project's zone at the request (the test clock: 2026-03-10 12:00 in São Paulo), and echoes them.
func TestQueryNamedRange(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	e.seedFacts(tn)
	ask := func(time string) map[string]any {
		t.Helper()
		r := e.do("POST", "/v3/query", `{"project_id":"`+tn.project.ID+`","fields":["spend","clicks"],"metadata":{"level":"campaign"},"time":`+time+`}`, bearer(tn.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", time, r.Status, r.Body)
		}
		return r.JSON(t)
	}
	for name, dates := range map[string][2]string{"last_7_days": {"2026-03-03", "2026-03-09"}, "yesterday": {"2026-03-09", "2026-03-09"},
		"this_month": {"2026-03-01", "2026-03-10"}, "last_month": {"2026-02-01", "2026-02-28"}} {
		named := ask(`{"range":"` + name + `","granularity":"day"}`)
		explicit := ask(`{"start":"` + dates[0] + `","end":"` + dates[1] + `","granularity":"day"}`)
		if fmt.Sprint(named["time"]) != fmt.Sprint(map[string]any{"start": dates[0], "end": dates[1]}) {
			t.Errorf("%s echoes %v, want %v", name, named["time"], dates)
		}
		if _, ok := explicit["time"]; ok {
			t.Errorf("an explicit range echoes time: %v", explicit["time"])
		}
		if fmt.Sprint(named["data"]) != fmt.Sprint(explicit["data"]) {
			t.Errorf("%s answers other rows than %v:\n%v\n%v", name, dates, named["data"], explicit["data"])
		}
	}
}

// TestQueryTotalRows: total_rows counts the rows before limit and offset, after metric filters,
// for levels and for series (every bucket is a row), and is absent unless asked.
func TestQueryTotalRows(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierGrowth, "act_111")
	e.seedFacts(tn)
	ask := func(extra string) map[string]any {
		t.Helper()
		r := e.do("POST", "/v3/query", `{"project_id":"`+tn.project.ID+`","fields":["spend","clicks"],"time":{"start":"2026-03-01","end":"2026-03-09"}`+extra+`}`, bearer(tn.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", extra, r.Status, r.Body)
		}
		return r.JSON(t)
	}
	for _, shape := range []string{
		`,"metadata":{"level":"ad"}`,
		`,"metadata":{"level":"ad"},"filters":[{"member":"spend","operator":"gt","values":["20"]}]`,
		`,"metadata":{"level":"adset"},"filters":[{"member":"campaign_name","operator":"contains","values":["a"]}]`,
		`,"time":{"start":"2026-03-01","end":"2026-03-09","granularity":"day"}`,
		`,"time":{"start":"2026-03-01","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"}`,
	} {
		all := ask(shape + `,"limit":50000`)
		rows := len(all["data"].([]any))
		if _, ok := all["total_rows"]; ok {
			t.Fatalf("%s: total_rows without total", shape)
		}
		for _, page := range []string{`,"limit":50000`, `,"limit":3`, `,"limit":2,"offset":3`, `,"limit":5,"offset":100000`} {
			got := ask(shape + page + `,"total":true`)
			if got["total_rows"] != float64(rows) {
				t.Errorf("%s%s: total_rows %v, want %d (the rows without paging)", shape, page, got["total_rows"], rows)
			}
		}
		if rows < 4 {
			t.Errorf("%s: only %d rows: the paging above tells nothing", shape, rows)
		}
	}
}

func TestQueryAccess(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierGrowth, "act_111")
	b := e.newTenant("bolt", platform.TierGrowth, "act_222")
	e.seedFacts(b)
	body := func(p string) map[string]any { return map[string]any{"project_id": p, "fields": []string{"spend"}} }
	jwt := e.login(a)

	wantError(t, e.do("POST", "/v3/query", body(b.project.ID), bearer(a.readKey)...), 403, "authorization_error", "access_denied")
	wantError(t, e.do("POST", "/v3/query", body("prj_unknown"), bearer(a.readKey)...), 404, "not_found_error", "resource_not_found")
	wantError(t, e.do("POST", "/v3/query", body(a.project.ID), bearer(a.trackKey)...), 403, "authorization_error", "insufficient_scope")
	wantError(t, e.do("POST", "/v3/query", body(a.project.ID)), 401, "authentication_error", "invalid_api_key")
	errObj := wantError(t, e.do("POST", "/v3/query", body(a.project.ID), bearer(jwt)...), 400, "validation_error", "missing_parameter")
	if !strings.Contains(fmt.Sprint(errObj["details"]), "X-Workspace-Id") {
		t.Fatalf("details %v", errObj["details"])
	}
	wantError(t, e.do("GET", "/v3/fields", nil, bearer(jwt)...), 400, "validation_error", "missing_parameter")
	wantError(t, e.do("POST", "/v3/query", body(b.project.ID), append(bearer(jwt), "X-Workspace-Id", a.ws.ID)...), 403, "authorization_error", "access_denied")
	if r := e.do("POST", "/v3/query", body(a.project.ID), append(bearer(jwt), "X-Workspace-Id", a.ws.ID)...); r.Status != 200 {
		t.Fatalf("JWT with its workspace: %d %s", r.Status, r.Body)
	}
	// B's numbers never reach A: A's project has no facts at all.
	r := e.do("POST", "/v3/query", map[string]any{"project_id": a.project.ID, "fields": []string{"spend", "impressions"},
		"time": map[string]string{"start": "2026-02-01", "end": "2026-03-10"}}, bearer(a.readKey)...)
	if !strings.Contains(string(r.Body), `"data":[{"spend":0.00,"impressions":0}]`) {
		t.Fatalf("A sees data it does not own: %s", r.Body)
	}
}

func TestFields(t *testing.T) {
	e := newEnv(t)
	tn := e.newTenant("acme", platform.TierDefault, "act_111")
	all := e.do("GET", "/v3/fields", nil, bearer(tn.readKey)...).JSON(t)
	metrics, dims := all["metrics"].([]any), all["dimensions"].([]any)
	if len(metrics) < 28 || len(dims) != 22 {
		t.Fatalf("fields: %d metrics, %d dimensions", len(metrics), len(dims))
	}
	// A traffic or order dimension lists the metrics it serves: business ones only.
	for _, d := range dims {
		dm := d.(map[string]any)
		if dm["name"] != "utm_source" {
			continue
		}
		served := fmt.Sprint(dm["metrics"])
		if !strings.Contains(served, "tx_revenue") || !strings.Contains(served, "tx_units") || strings.Contains(served, "spend") {
			t.Fatalf("utm_source serves %s", served)
		}
	}
	byName := map[string]map[string]any{}
	for _, m := range metrics {
		mm := m.(map[string]any)
		byName[mm["name"].(string)] = mm
	}
	if p := byName["profit"]; p["formula"] != "tx_revenue - spend - tx_product_costs" || p["category"] == nil || p["unit"] != "money" {
		t.Fatalf("profit: %v", p)
	}
	beta := e.do("GET", "/v3/fields?source=beta_ads", nil, bearer(tn.readKey)...).JSON(t)
	for _, m := range beta["metrics"].([]any) {
		if n := m.(map[string]any)["name"]; n == "reach" || n == "frequency" {
			t.Fatalf("beta_ads lists %v", n)
		}
	}
	wantError(t, e.do("GET", "/v3/fields?source=nope", nil, bearer(tn.readKey)...), 400, "validation_error", "invalid_source")
}

// TestQueryBodyReadAgainKeepsEveryCheck: a body already read is not decoded again
// (queryBodies), and that skips none of what depends on the caller or the request: the same
// bytes that A's key got answered are 403 for B's key, 401 without a credential, 403 for a key
// without data:read, and a bad body is refused with its 400 every time it comes.
func TestQueryBodyReadAgainKeepsEveryCheck(t *testing.T) {
	e := newEnv(t)
	a := e.newTenant("acme", platform.TierGrowth, "act_111")
	b := e.newTenant("bolt", platform.TierGrowth, "act_222")
	body := map[string]any{"project_id": a.project.ID, "fields": []string{"spend"}}
	for range 2 {
		if r := e.do("POST", "/v3/query", body, bearer(a.readKey)...); r.Status != 200 {
			t.Fatalf("A's own project: %d %s", r.Status, r.Body)
		}
		wantError(t, e.do("POST", "/v3/query", body, bearer(b.readKey)...), 403, "authorization_error", "access_denied")
		wantError(t, e.do("POST", "/v3/query", body), 401, "authentication_error", "invalid_api_key")
		wantError(t, e.do("POST", "/v3/query", body, bearer(a.trackKey)...), 403, "authorization_error", "insufficient_scope")
	}
	bad := map[string]any{"project_id": a.project.ID, "fields": []string{"spend", "nope"}}
	for range 2 {
		errObj := wantError(t, e.do("POST", "/v3/query", bad, bearer(a.readKey)...), 400, "validation_error", "invalid_parameter")
		if !strings.Contains(fmt.Sprint(errObj["details"]), "fields[1]") {
			t.Fatalf("details %v", errObj["details"])
		}
	}
}
