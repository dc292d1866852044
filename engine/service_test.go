package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/facts"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// seeded writes a small dataset into a fresh database and returns a service over it.
func seeded(t *testing.T, cfg enginetest.Config) (*engine.Service, *enginetest.Dataset, testenv.CH) {
	t.Helper()
	ch := testenv.ClickHouse(t)
	ds, err := enginetest.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(context.Background(), ch.Conn); err != nil {
		t.Fatal(err)
	}
	return engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)}), ds, ch
}

func scopeOf(p enginetest.Project) engine.Scope {
	return engine.Scope{ProjectID: p.ID, Currency: p.Currency, TimeZone: p.TimeZone, SubHour: true, ConnectionIDs: p.ConnectionIDs}
}

func query(t *testing.T, svc *engine.Service, scope engine.Scope, body string) *engine.Result {
	t.Helper()
	res, err := svc.Query(context.Background(), scope, mustInput(t, body))
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return res
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

var smallConfig = enginetest.Config{Seed: 3, Projects: []enginetest.ProjectSpec{
	{ID: "prj_1", TimeZone: "America/New_York", Currency: "USD", Start: day(2024, 3, 8), Days: 4,
		AccountCurrencies: map[string]string{"beta_ads": "BRL"}},
}}

func TestFallbackToCoarserTables(t *testing.T) {
	svc, ds, ch := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	ctx := context.Background()
	hourly := `{"project_id":"prj_1","fields":["tx_revenue","leads"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"hour"}}`
	daily := `{"project_id":"prj_1","fields":["tx_revenue","leads"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"day"}}`
	before, beforeDaily := query(t, svc, scope, hourly), query(t, svc, scope, daily)
	if len(before.Warnings) != 0 {
		t.Fatalf("warnings %q", before.Warnings)
	}

	// Filters that leave no facts in a table that holds the range: that table answers, zeros.
	filtered := query(t, svc, scope, `{"project_id":"prj_1","fields":["leads"],"time":{"start":"2024-03-09T10:00:00","end":"2024-03-09T11:00:00","granularity":"30min"},"filters":[{"member":"campaign_name","operator":"equals","values":["no such campaign"]}]}`)
	if len(filtered.Warnings) != 0 || asJSON(filtered.Data) != `[{"date":"2024-03-09T10:00:00-05:00","leads":0},{"date":"2024-03-09T10:30:00-05:00","leads":0}]` {
		t.Fatalf("filtered: %s", asJSON(filtered))
	}

	// Raw data past its retention: its partition is dropped, the rollups keep theirs.
	if err := ch.Conn.Exec(ctx, "ALTER TABLE facts_raw DROP PARTITION 202403"); err != nil {
		t.Fatal(err)
	}
	fine := `{"project_id":"prj_1","fields":["tx_revenue","leads"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"15min"}}`
	got := query(t, svc, scope, fine)
	want := "no raw data for this range; answered from the hourly table at hour granularity"
	if len(got.Warnings) != 1 || got.Warnings[0] != want {
		t.Fatalf("warnings %q, want %q", got.Warnings, want)
	}
	// Rows answered coarser than asked say so.
	if asJSON(unmarked(t, got.Data, "hour")) != asJSON(unmarked(t, before.Data, "")) {
		t.Fatalf("hourly answer differs from the raw one:\n%s\n%s", asJSON(got.Data), asJSON(before.Data))
	}

	if err := ch.Conn.Exec(ctx, "ALTER TABLE facts_hourly DROP PARTITION 202403"); err != nil {
		t.Fatal(err)
	}
	got = query(t, svc, scope, fine)
	want = "no raw data for this range; answered from the daily table at day granularity"
	if len(got.Warnings) != 1 || got.Warnings[0] != want {
		t.Fatalf("warnings %q, want %q", got.Warnings, want)
	}
	if asJSON(unmarked(t, got.Data, "day")) != asJSON(unmarked(t, beforeDaily.Data, "")) {
		t.Fatalf("daily answer differs:\n%s\n%s", asJSON(got.Data), asJSON(beforeDaily.Data))
	}

	// No table has data: the exact table answers with zeros, without a fallback warning.
	empty := query(t, svc, scope, `{"project_id":"prj_1","fields":["leads"],"time":{"start":"2023-01-01T10:00:00","end":"2023-01-01T11:00:00","granularity":"30min"}}`)
	if len(empty.Warnings) != 0 || asJSON(empty.Data) != `[{"date":"2023-01-01T10:00:00-05:00","leads":0},{"date":"2023-01-01T10:30:00-05:00","leads":0}]` {
		t.Fatalf("empty range: %s", asJSON(empty))
	}
}

// unmarked is rows as JSON objects without their "granularity" member, which every row must
// carry with the value mark (or lack, for mark "").
func unmarked(t *testing.T, rows []engine.Row, mark string) []map[string]any {
	t.Helper()
	var out []map[string]any
	if err := json.Unmarshal([]byte(asJSON(rows)), &out); err != nil {
		t.Fatal(err)
	}
	for _, r := range out {
		if got, _ := r["granularity"].(string); got != mark {
			t.Fatalf("row %v is not marked %q", r, mark)
		}
		delete(r, "granularity")
	}
	return out
}

func TestSubHourlyOnDefaultTierAnswersAtHour(t *testing.T) {
	svc, ds, _ := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	scope.SubHour = false // the default tier
	res := query(t, svc, scope, `{"project_id":"prj_1","fields":["clicks"],"time":{"start":"2024-03-09T10:00:00","end":"2024-03-09T12:00:00","granularity":"5min"}}`)
	want := "granularity 5min is not available on the default tier; answered at hour granularity"
	if len(res.Warnings) != 1 || res.Warnings[0] != want || len(res.Data) != 2 {
		t.Fatalf("%s", asJSON(res))
	}
}

func TestReachWarningAndNulls(t *testing.T) {
	svc, ds, _ := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	const upper = "reach is summed over several days; the sum is an upper bound of the unique reach"
	res := query(t, svc, scope, `{"project_id":"prj_1","fields":["reach","frequency"],"time":{"start":"2024-03-08","end":"2024-03-11"}}`)
	if len(res.Warnings) != 1 || res.Warnings[0] != upper {
		t.Fatalf("warnings %q", res.Warnings)
	}
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["reach"],"time":{"start":"2024-03-08","end":"2024-03-11","granularity":"day"}}`)
	if len(res.Warnings) != 0 {
		t.Fatalf("daily reach warned: %q", res.Warnings)
	}
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["reach","frequency","impressions"],"source":"beta_ads","time":{"start":"2024-03-08","end":"2024-03-11"}}`)
	if len(res.Warnings) != 0 || !strings.HasPrefix(asJSON(res.Data), `[{"reach":null,"frequency":null,"impressions":`) {
		t.Fatalf("beta_ads reach: %s", asJSON(res))
	}
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["reach"],"time":{"start":"2024-03-09","end":"2024-03-09"},"metadata":{"level":"account"}}`)
	for _, r := range res.Data {
		src, _ := r.Get("source")
		reach, _ := r.Get("reach")
		if (src == "alpha_ads") != (reach != nil) {
			t.Fatalf("account rows: %s", asJSON(res.Data))
		}
	}
}

// A money value that needs a missing exchange rate is null, never 0 and never unconverted; so is
// every metric built on it; counts are unaffected; the warning names the pair and the days.
func TestMissingRateIsNull(t *testing.T) {
	cfg := smallConfig
	cfg.MissingRates = []enginetest.RateKey{{Day: day(2024, 3, 9), Base: "BRL", Quote: "USD"}}
	svc, ds, _ := seeded(t, cfg)
	p := ds.Projects[0]
	scope := scopeOf(p)
	fields := `"fields":["spend","cpc","roas","profit","clicks"]`
	res := query(t, svc, scope, `{"project_id":"prj_1",`+fields+`,"time":{"start":"2024-03-08","end":"2024-03-11"}}`)
	want := `["no exchange rate from BRL to USD on 2024-03-09; money values that need it are null"]`
	if asJSON(res.Warnings) != want {
		t.Fatalf("warnings %s, want %s", asJSON(res.Warnings), want)
	}
	row := res.Data[0]
	for _, f := range []string{"spend", "cpc", "roas", "profit"} {
		if v, _ := row.Get(f); v != nil {
			t.Errorf("%s = %v, want null", f, v)
		}
	}
	if v, _ := row.Get("clicks"); v.(int64) <= 0 {
		t.Errorf("clicks = %v", v)
	}
	// By day: only the day without a rate is null; the others are numbers.
	res = query(t, svc, scope, `{"project_id":"prj_1",`+fields+`,"time":{"start":"2024-03-08","end":"2024-03-11","granularity":"day"}}`)
	for _, r := range res.Data {
		d, _ := r.Get("date")
		spend, _ := r.Get("spend")
		if (spend == nil) != (d == "2024-03-09") {
			t.Errorf("%s: spend %v", d, spend)
		}
	}
	// The BRL account's money alone, by source: null on that day; USD's is untouched, unwarned.
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["spend"],"source":"alpha_ads","time":{"start":"2024-03-08","end":"2024-03-11"}}`)
	if v, _ := res.Data[0].Get("spend"); len(res.Warnings) != 0 || v == nil {
		t.Fatalf("alpha_ads: %s", asJSON(res))
	}
	// A metric filter on a null value matches nothing, as on a null ratio.
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["spend"],"time":{"start":"2024-03-08","end":"2024-03-11"},"filters":[{"member":"spend","operator":"gte","values":["0"]}]}`)
	if len(res.Data) != 0 {
		t.Fatalf("filtered: %s", asJSON(res))
	}
	// No rate at all: every day.
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["spend","clicks"],"time":{"start":"2024-03-08","end":"2024-03-11"},"metadata":{"convert_to_currency":"GBP"}}`)
	if v, _ := res.Data[0].Get("spend"); v != nil || !strings.Contains(asJSON(res.Warnings), "no exchange rate from BRL to GBP on every day of the range") {
		t.Fatalf("GBP: %s", asJSON(res))
	}
}

func TestRowsShapeAndPaging(t *testing.T) {
	svc, ds, _ := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	res := query(t, svc, scope, `{"project_id":"prj_1","fields":["spend","ctr"],"time":{"start":"2024-03-09","end":"2024-03-10","granularity":"day"},"metadata":{"level":"campaign"},"limit":2,"offset":1}`)
	if !res.HasMore || len(res.Data) != 2 || res.Currency != "USD" {
		t.Fatalf("%s", asJSON(res))
	}
	first := asJSON(res.Data[0])
	if !strings.HasPrefix(first, `{"date":"2024-03-09","campaign_id":"`) || !strings.Contains(first, `","campaign_name":"`) ||
		!strings.Contains(first, `","source":"`) || !strings.Contains(first, `,"spend":`) {
		t.Fatalf("row %s", first)
	}
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["clicks"],"time":{"start":"2024-03-10T00:00:00","end":"2024-03-10T04:00:00","granularity":"hour"}}`)
	// 2024-03-10 is the spring-forward day in New York: 02:00 local does not exist.
	want := []string{"2024-03-10T00:00:00-05:00", "2024-03-10T01:00:00-05:00", "2024-03-10T03:00:00-04:00"}
	if len(res.Data) != len(want) {
		t.Fatalf("%s", asJSON(res.Data))
	}
	for i, w := range want {
		if d, _ := res.Data[i].Get("date"); d != w {
			t.Fatalf("bucket %d %v, want %s", i, d, w)
		}
	}
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["spend","cpc"],"time":{"start":"2030-01-01","end":"2030-01-01"}}`)
	if asJSON(res.Data) != `[{"spend":0.00,"cpc":null}]` {
		t.Fatalf("empty totals: %s", asJSON(res.Data))
	}
}

func TestQueryValidationErrors(t *testing.T) {
	svc, ds, _ := seeded(t, smallConfig)
	_, err := svc.Query(context.Background(), scopeOf(ds.Projects[0]), mustInput(t, `{"project_id":"prj_1","fields":["spend"],"source":"x"}`))
	if e, ok := apperr.As(err); !ok || e.Code != apperr.CodeInvalidSource {
		t.Fatalf("err %v", err)
	}
}

func TestQueryTimeout(t *testing.T) {
	ch := testenv.ClickHouse(t)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow), MaxExecutionTime: time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	<-ctx.Done() // the request's deadline has passed before the query starts
	_, err := svc.Query(ctx, testScope, mustInput(t, `{"project_id":"prj_1","fields":["spend"]}`))
	e, ok := apperr.As(err)
	if !ok || e.Status != 503 || e.RetryAfter <= 0 {
		t.Fatalf("err %v, want a 503 with Retry-After", err)
	}
}

func TestHostileValuesTravelAsArguments(t *testing.T) {
	svc, ds, _ := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	for _, v := range []string{"' OR 1=1 --", `\' OR 1 --`, "{x:String}", "?", "100%_", "Summer'"} {
		body := asJSON(map[string]any{"project_id": "prj_1", "fields": []string{"clicks"}, "time": map[string]string{"start": "2024-03-08", "end": "2024-03-11"},
			"filters": []map[string]any{{"member": "campaign_name", "operator": "contains", "values": []string{v}},
				{"member": "ad_id", "operator": "notEquals", "values": []string{v}}}})
		res := query(t, svc, scope, body)
		if c, _ := res.Data[0].Get("clicks"); c != int64(0) {
			t.Errorf("%q matched: %s", v, asJSON(res.Data))
		}
	}
	// A literal % or _ matches only itself.
	res := query(t, svc, scope, `{"project_id":"prj_1","fields":["clicks"],"filters":[{"member":"adset_name","operator":"startsWith","values":["%"]}]}`)
	if c, _ := res.Data[0].Get("clicks"); c != int64(0) {
		t.Errorf("%% matched as a wildcard")
	}
}

func TestNoFallbackForDataAtTheEdges(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	loc, _ := time.LoadLocation("America/New_York")
	fact := facts.Fact{ProjectID: "prj_1", Time: time.Date(2024, 3, 5, 10, 20, 0, 0, loc), AdEntity: facts.AdEntity{Source: "beta_ads", ConnectionID: "con_a", AccountID: "a", CampaignID: "c", AdsetID: "s", AdID: "d"}, Currency: "USD", Values: facts.Values{facts.Leads: 7}}
	if err := facts.InsertFacts(ctx, ch.Conn, loc, []facts.Fact{fact}); err != nil {
		t.Fatal(err)
	}
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	scope := engine.Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "America/New_York", SubHour: true}
	// The hour 10:00-11:00 holds the fact, but not the range 10:30-12:00: raw answers, with 0.
	res := query(t, svc, scope, `{"project_id":"prj_1","fields":["leads"],"time":{"start":"2024-03-05T10:30:00","end":"2024-03-05T12:00:00"}}`)
	if len(res.Warnings) != 0 || asJSON(res.Data) != `[{"leads":0}]` {
		t.Fatalf("%s", asJSON(res))
	}
	res = query(t, svc, scope, `{"project_id":"prj_1","fields":["leads"],"time":{"start":"2024-03-05T10:15:00","end":"2024-03-05T12:00:00"}}`)
	if len(res.Warnings) != 0 || asJSON(res.Data) != `[{"leads":7}]` {
		t.Fatalf("%s", asJSON(res))
	}
}

func TestSettingsPerTable(t *testing.T) {
	svc := engine.New(nil, engine.Options{MaxExecutionTime: 3 * time.Second})
	raw, daily := svc.Settings("facts_raw"), svc.Settings("facts_daily")
	if raw["max_execution_time"] != 3 || daily["max_execution_time"] != 3 || daily["max_rows_to_read"] != 2_000_000_000 {
		t.Fatalf("limits: %v %v", raw, daily)
	}
	if _, ok := raw["max_threads"]; ok || daily["max_threads"] != 1 || svc.Settings("facts_hourly")["max_threads"] != 1 {
		t.Fatalf("threads: raw %v, daily %v", raw, daily)
	}
}

// TestOneCurrencyStatementNeverHidesForeignMoney pins Attempt.OneCurrency on a project whose
// facts mix currencies: a first page (cut by limit, ordered by money, filtered on money) is the
// head of the whole converted answer, so no row in another currency was missed by the statement
// that sums money as stored, whatever its order or filter would have made of it.
func TestOneCurrencyStatementNeverHidesForeignMoney(t *testing.T) {
	_, ds, ch := seeded(t, smallConfig)
	scope := scopeOf(ds.Projects[0])
	fresh := func() *engine.Service {
		return engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	}
	base := `"project_id":"prj_1","fields":["spend","clicks"],"time":{"start":"2024-03-08","end":"2024-03-11"},"metadata":{"level":"campaign"}`
	for _, extra := range []string{
		`"order":{"spend":"desc"}`,
		`"order":{"spend":"asc"}`,
		`"order":{"clicks":"desc"}`,
		`"order":{"spend":"desc"},"filters":[{"member":"spend","operator":"gt","values":["50"]}]`,
		`"order":{"spend":"asc"},"filters":[{"member":"spend","operator":"lt","values":["500"]}]`,
		// Summed as stored, the two BRL campaigns (about 74 and 80 USD) would be over 370.
		`"order":{"spend":"asc"},"filters":[{"member":"spend","operator":"lt","values":["370"]}]`,
	} {
		all := query(t, fresh(), scope, `{`+base+`,`+extra+`,"limit":1000}`)
		if len(all.Data) < 3 {
			t.Fatalf("%s: %d rows; the test needs several campaigns", extra, len(all.Data))
		}
		for _, limit := range []int{1, 2} {
			page := query(t, fresh(), scope, `{`+base+`,`+extra+`,"limit":`+fmt.Sprint(limit)+`}`)
			if got, want := asJSON(page.Data), asJSON(all.Data[:limit]); got != want {
				t.Errorf("%s limit %d:\n got %s\nwant %s", extra, limit, got, want)
			}
			if !page.HasMore {
				t.Errorf("%s limit %d: has_more is false", extra, limit)
			}
		}
	}
	sources := map[string]bool{}
	for _, r := range query(t, fresh(), scope, `{`+base+`,"limit":1000}`).Data {
		sources[asJSON(r.Values[2])] = true
	}
	if len(sources) < 2 {
		t.Fatalf("sources %v: the project must have accounts in two currencies", sources)
	}
}
