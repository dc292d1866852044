package engine_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"mtk/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var testScope = engine.Scope{ProjectID: "prj_1", Currency: "BRL", TimeZone: "America/Sao_Paulo", SubHour: true,
	ConnectionIDs: []string{"con_a", "con_b"}}

var testNow = time.Date(2024, 3, 16, 15, 0, 0, 0, time.UTC)

func mustInput(t testing.TB, body string) engine.QueryInput {
	t.Helper()
	var in engine.QueryInput
	if err := json.Unmarshal([]byte(body), &in); err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return in
}

func compile(t *testing.T, scope engine.Scope, body string) *engine.Compiled {
	t.Helper()
	c, err := engine.Compile(scope, mustInput(t, body), testNow)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return c
}

func TestCompileExactSQL(t *testing.T) {
	c := compile(t, testScope, `{"project_id":"prj_1","fields":["impressions"],"time":{"start":"2024-03-01","end":"2024-03-07"}}`)
	if len(c.Attempts) != 1 || c.Attempts[0].Probe != nil {
		t.Fatalf("a whole-day range needs one attempt on the daily table without probe: %+v", c.Attempts)
	}
	want := "SELECT impressions FROM (SELECT sum(s_impressions) AS impressions FROM (SELECT sum(impressions) AS s_impressions " +
		"FROM facts_daily WHERE project_id = ? AND day >= toDate(?) AND day < toDate(?)) AS facts) LIMIT ? OFFSET ?"
	q := c.Attempts[0].Query
	if q.SQL != want {
		t.Fatalf("SQL\n got %s\nwant %s", q.SQL, want)
	}
	if got := fmt.Sprint(q.Args); got != "[prj_1 2024-03-01 2024-03-08 10001 0]" {
		t.Fatalf("args %s", got)
	}
}

// goldenCases are the queries whose compiled SQL testdata/ pins (and the conformance test runs
// on current ClickHouse).
var goldenCases = []struct {
	name  string
	scope engine.Scope
	body  string
	// days, when set, are the day spans the Spans statement found.
	days []time.Time
}{
	{"totals_money_daily", testScope, `{"project_id":"prj_1","fields":["spend","cpc","roas"],"time":{"start":"2024-03-01","end":"2024-03-07"}}`, nil},
	{"day_gapfill_filters", testScope, `{"project_id":"prj_1","fields":["clicks","ctr"],"source":"alpha_ads","connection_ids":["con_a"],
		"time":{"start":"2024-03-01","end":"2024-03-07","granularity":"day"},
		"filters":[{"member":"campaign_name","operator":"contains","values":["summer","winter"]},{"member":"ctr","operator":"gt","values":["0.01"]}]}`, nil},
	{"campaign_week_order_paging", testScope, `{"project_id":"prj_1","fields":["spend","tx_revenue","profit"],
		"time":{"start":"2024-01-01","end":"2024-03-31","granularity":"week"},"order":{"profit":"desc","campaign_name":"asc"},
		"limit":50,"offset":100,"metadata":{"level":"campaign","convert_to_currency":"USD"}}`, nil},
	{"hour_kolkata_hourly", engine.Scope{ProjectID: "prj_1", Currency: "EUR", TimeZone: "Asia/Kolkata", SubHour: true},
		`{"project_id":"prj_1","fields":["impressions","reach","frequency"],"time":{"start":"2024-03-01T10:00:00","end":"2024-03-02T10:00:00","granularity":"hour"}}`, nil},
	{"fivemin_ad_at_hour", testScope, `{"project_id":"prj_1","fields":["video_plays","hook_rate"],
		"time":{"start":"2024-03-01T10:07:00-03:00","end":"2024-03-01T12:00:00-03:00","granularity":"5min"},
		"filters":[{"member":"ad_name","operator":"notContains","values":["test"]},{"member":"adset_id","operator":"set"},
		{"member":"source","operator":"notEquals","values":["gamma_ads"]},{"member":"hook_rate","operator":"notSet"},
		{"member":"ad_name","operator":"equals","values":[""]}],
		"metadata":{"level":"ad"}}`, nil},
	{"thirtymin_default_tier", engine.Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "America/New_York"},
		`{"project_id":"prj_1","fields":["leads","cpl"],"time":{"start":"2024-03-09T10:30:00Z","end":"2024-03-11T10:30:00Z","granularity":"30min"}}`, nil},
	{"fivemin_raw_events", testScope, `{"project_id":"prj_1","fields":["page_views","tx_revenue"],
		"time":{"start":"2024-03-01T10:07:00-03:00","end":"2024-03-01T12:00:00-03:00","granularity":"5min"},
		"filters":[{"member":"campaign_name","operator":"contains","values":["summer"]}]}`, nil},
	{"hour_day_spans", testScope, `{"project_id":"prj_1","fields":["spend","clicks","tx_revenue"],
		"time":{"start":"2024-02-20T10:00:00","end":"2024-03-07","granularity":"hour"},"metadata":{"convert_to_currency":"USD"}}`,
		[]time.Time{day(2024, 2, 20), day(2024, 2, 21), day(2024, 2, 22), day(2024, 2, 28)}},
	{"campaign_totals_day_spans", testScope, `{"project_id":"prj_1","fields":["impressions","roas"],
		"time":{"start":"2024-02-27T08:00:00-03:00","end":"2024-03-01T08:30:00-03:00"},"metadata":{"level":"campaign"}}`,
		[]time.Time{day(2024, 2, 27)}},
	{"utm_source_device_day_campaign", testScope, `{"project_id":"prj_1","fields":["tx_revenue","leads","aov"],
		"time":{"start":"2024-03-01","end":"2024-03-30","granularity":"day"},"order":{"utm_source":"asc"},
		"filters":[{"member":"utm_medium","operator":"notSet"},{"member":"landing_path","operator":"startsWith","values":["/produto"]}],
		"metadata":{"level":"campaign","dimensions":["utm_source","device"]}}`, nil},
	{"product_week_net_raw", testScope, `{"project_id":"prj_1","fields":["tx_revenue","tx_units","tx_count"],
		"time":{"start":"2024-03-01T10:07:00-03:00","end":"2024-03-29T12:00:00-03:00","granularity":"week"},
		"filters":[{"member":"product_name","operator":"contains","values":["tênis"]}],
		"metadata":{"dimensions":["product_id","customer_type"],"revenue":"net"}}`, nil},
	{"utm_source_day_dimension_rollup", testScope, `{"project_id":"prj_1","fields":["page_views","tx_revenue"],
		"time":{"start":"2024-03-01","end":"2024-03-30","granularity":"day"},
		"filters":[{"member":"utm_source","operator":"notEquals","values":["google"]}],"metadata":{"dimensions":["utm_source"]}}`, nil},
}

func TestCompileGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			c := compile(t, tc.scope, tc.body)
			if tc.days != nil {
				c = c.WithDaySpans(tc.days)
			}
			got := render(c)
			path := filepath.Join("testdata", tc.name+".sql")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Fatalf("compiled SQL differs from %s (go test -update rewrites it):\n%s", path, got)
			}
			if again := compile(t, tc.scope, tc.body); tc.days == nil && render(again) != got {
				t.Fatal("compiling twice gave different SQL")
			}
		})
	}
}

// render writes a compiled query as the golden files hold it.
func render(c *engine.Compiled) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- warnings: %q\n-- currency: %s\n", c.Warnings, c.Currency)
	if c.Spans != nil {
		fmt.Fprintf(&b, "\n-- day spans\n%s\n%s", c.Spans.SQL, formatArgs(c.Spans.Args))
	}
	for _, a := range c.Attempts {
		fmt.Fprintf(&b, "\n-- attempt on %s, warnings %q\n", a.Table, a.Warnings)
		if a.Probe != nil {
			fmt.Fprintf(&b, "-- probe\n%s\n%s", a.Probe.SQL, formatArgs(a.Probe.Args))
		}
		fmt.Fprintf(&b, "-- query\n%s\n%s", a.Query.SQL, formatArgs(a.Query.Args))
		if a.OneCurrency != nil {
			fmt.Fprintf(&b, "-- one currency\n%s\n%s", a.OneCurrency.SQL, formatArgs(a.OneCurrency.Args))
		}
		if a.Lean != nil {
			fmt.Fprintf(&b, "-- lean\n%s\n%s", a.Lean.SQL, formatArgs(a.Lean.Args))
		}
		if a.Overlap != nil {
			fmt.Fprintf(&b, "-- orders of several products\n%s\n%s", a.Overlap.SQL, formatArgs(a.Overlap.Args))
		}
	}
	return b.String()
}

func formatArgs(args []any) string {
	var b strings.Builder
	for i, a := range args {
		fmt.Fprintf(&b, "-- $%d %T %v\n", i+1, a, a)
	}
	return b.String()
}

func TestTableChoice(t *testing.T) {
	ny := engine.Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "America/New_York", SubHour: true}
	in := engine.Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "Asia/Kolkata", SubHour: true}
	cases := []struct {
		scope engine.Scope
		time  string
		want  []string
	}{
		{ny, `{"start":"2024-03-01","end":"2024-03-31"}`, []string{"facts_daily"}},
		{ny, `{"start":"2024-03-01","end":"2024-03-31","granularity":"month"}`, []string{"facts_daily"}},
		{ny, `{"start":"2024-03-01T05:00:00Z","end":"2024-03-02T05:00:00Z"}`, []string{"facts_daily"}},
		{ny, `{"start":"2024-03-01T06:00:00Z","end":"2024-03-02T05:00:00Z","granularity":"day"}`, []string{"facts_hourly", "facts_daily"}},
		{ny, `{"start":"2024-03-01T06:00:00Z","end":"2024-03-02T05:00:00Z","granularity":"hour"}`, []string{"facts_hourly", "facts_daily"}},
		{ny, `{"start":"2024-03-01T06:10:00Z","end":"2024-03-02T05:00:00Z"}`, []string{"facts_raw", "facts_hourly", "facts_daily"}},
		{ny, `{"start":"2024-03-01","end":"2024-03-02","granularity":"15min"}`, []string{"facts_raw", "facts_hourly", "facts_daily"}},
		// +05:30: local hours start at half past the UTC hour.
		{in, `{"start":"2024-03-01T04:30:00Z","end":"2024-03-01T06:30:00Z","granularity":"hour"}`, []string{"facts_hourly", "facts_daily"}},
		{in, `{"start":"2024-03-01T04:00:00Z","end":"2024-03-01T06:00:00Z","granularity":"hour"}`, []string{"facts_raw", "facts_hourly", "facts_daily"}},
	}
	for _, tc := range cases {
		c := compile(t, tc.scope, `{"project_id":"prj_1","fields":["page_views"],"time":`+tc.time+`}`)
		var got []string
		for _, a := range c.Attempts {
			got = append(got, a.Table)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s in %s: tables %v, want %v", tc.time, tc.scope.TimeZone, got, tc.want)
		}
	}
}

// A query that needs an ad measure never reads facts_raw (ad facts stand there at the minute a
// sync saw them): it reads the hourly table, at hour granularity for a sub-hour one, with the
// range widened to whole hours, and asks for its day spans first unless the daily table answers.
func TestAdMeasuresReadHourOrCoarser(t *testing.T) {
	ny := engine.Scope{ProjectID: "prj_1", Currency: "USD", TimeZone: "America/New_York", SubHour: true}
	cases := []struct {
		time, tables string
		spans        bool
		warnings     string
	}{
		{`{"start":"2024-03-01","end":"2024-03-31"}`, "[facts_daily]", false, "null"},
		{`{"start":"2024-03-01","end":"2024-03-31","granularity":"hour"}`, "[facts_hourly facts_daily]", true, "null"},
		{`{"start":"2024-03-01","end":"2024-03-02","granularity":"15min"}`, "[facts_hourly facts_daily]", true,
			`["ad metrics are known per hour at best; answered from the hourly table at hour granularity"]`},
		{`{"start":"2024-03-01T06:10:00Z","end":"2024-03-01T09:00:00Z"}`, "[facts_hourly facts_daily]", true,
			`["ad metrics are known per hour at best; the range was widened to whole hours"]`},
		// The part widened past now holds nothing yet: no warning.
		{`{"start":"2024-03-16T06:00:00Z","end":"2024-03-16T15:10:00Z"}`, "[facts_hourly facts_daily]", true, "null"},
	}
	for _, tc := range cases {
		c, err := engine.Compile(ny, mustInput(t, `{"project_id":"prj_1","fields":["spend","tx_revenue"],"time":`+tc.time+`}`),
			time.Date(2024, 3, 16, 15, 5, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		var tables []string
		for _, a := range c.Attempts {
			tables = append(tables, a.Table)
		}
		if fmt.Sprint(tables) != tc.tables || (c.Spans != nil) != tc.spans || asJSON(c.Warnings) != tc.warnings {
			t.Errorf("%s: tables %v, spans %v, warnings %s", tc.time, tables, c.Spans != nil, asJSON(c.Warnings))
		}
	}
}

func TestOrderKeepsJSONMemberOrder(t *testing.T) {
	in := mustInput(t, `{"order":{"spend":"desc","date":"asc","clicks":"ASC"}}`)
	if got := fmt.Sprint(in.Order); got != "[{spend desc} {date asc} {clicks ASC}]" {
		t.Fatalf("order %s", got)
	}
	b, _ := json.Marshal(in.Order)
	if string(b) != `{"spend":"desc","date":"asc","clicks":"ASC"}` {
		t.Fatalf("marshal %s", b)
	}
	var bad engine.QueryInput
	if err := json.Unmarshal([]byte(`{"order":["spend"]}`), &bad); err == nil {
		t.Fatal("an order array was accepted")
	}
}
