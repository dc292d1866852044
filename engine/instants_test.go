package engine_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/facts"
	"mtk/internal/apperr"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// A query's range or comparison period outside the supported instants (CONTRACT "Hostile
// input") is a 400 naming the member that set it: 0001-01-01..9999-12-31 was a 500, and 1969 or
// 2106 answered rows labelled 1970-01-01.
func TestQueryTimeOutsideSupportedInstants(t *testing.T) {
	const supported = "(from 1970-01-02T00:00:00Z to before 2105-12-30T00:00:00Z)"
	utc := testScope
	utc.TimeZone = "UTC"
	cases := []struct {
		name  string
		scope engine.Scope
		now   time.Time
		time  string
		want  []string
	}{
		{"0001-01-01 to 9999-12-31", utc, testNow, `{"start":"0001-01-01","end":"9999-12-31"}`, []string{
			"time.start: starts at 0001-01-01T00:00:00Z, before the supported instants " + supported,
			"time.end: ends at 10000-01-01T00:00:00Z, after the supported instants " + supported}},
		{"1969", utc, testNow, `{"start":"1969-12-01","end":"1970-01-31"}`, []string{
			"time.start: starts at 1969-12-01T00:00:00Z, before the supported instants " + supported}},
		{"1970-01-01", utc, testNow, `{"start":"1970-01-01","end":"1970-01-31"}`, []string{
			"time.start: starts at 1970-01-01T00:00:00Z, before the supported instants " + supported}},
		{"2106", utc, testNow, `{"start":"2105-12-01","end":"2106-01-15"}`, []string{
			"time.end: ends at 2106-01-16T00:00:00Z, after the supported instants " + supported}},
		{"a date-time end past the last instant", utc, testNow, `{"start":"2105-12-01","end":"2105-12-30T00:00:01Z"}`, []string{
			"time.end: ends at 2105-12-30T00:00:01Z, after the supported instants " + supported}},
		// São Paulo is UTC-3: the whole local day 2105-12-29 ends at 03:00 UTC the next day.
		{"a date-only end, west of UTC", testScope, testNow, `{"start":"2105-12-01","end":"2105-12-29"}`, []string{
			"time.end: ends at 2105-12-30T03:00:00Z, after the supported instants " + supported}},
		// Tokyo is UTC+9: its local 1970-01-02 begins at 15:00 UTC the day before.
		{"a date-only start, east of UTC", engine.Scope{ProjectID: "prj_1", Currency: "BRL", TimeZone: "Asia/Tokyo"}, testNow,
			`{"start":"1970-01-02","end":"1970-01-31"}`, []string{
				"time.start: starts at 1970-01-01T15:00:00Z, before the supported instants " + supported}},
		{"the previous year of 1970", utc, testNow, `{"start":"1970-03-01","end":"1970-03-31","compare":"previous_year"}`, []string{
			"time.compare: starts at 1969-03-01T00:00:00Z, before the supported instants " + supported}},
		{"the previous period of early 1970", utc, testNow, `{"start":"1970-01-10","end":"1970-01-31","compare":"previous_period"}`, []string{
			"time.compare: starts at 1969-12-19T00:00:00Z, before the supported instants " + supported}},
		{"a comparison period in 1969", utc, testNow, `{"start":"1970-03-01","end":"1970-03-31","compare":{"start":"1969-03-01","end":"1969-03-31"}}`, []string{
			"time.compare.start: starts at 1969-03-01T00:00:00Z, before the supported instants " + supported}},
		{"a comparison period in 2106", utc, testNow, `{"start":"2105-03-01","end":"2105-03-31","compare":{"start":"2106-03-01","end":"2106-03-31"}}`, []string{
			"time.compare.end: ends at 2106-04-01T00:00:00Z, after the supported instants " + supported}},
		{"a named range at the end of 2105", utc, time.Date(2105, 12, 30, 12, 0, 0, 0, time.UTC), `{"range":"today"}`, []string{
			"time.range: ends at 2105-12-31T00:00:00Z, after the supported instants " + supported}},
		{"the default range in 2106", utc, time.Date(2106, 3, 1, 12, 0, 0, 0, time.UTC), ``, []string{
			"time: ends at 2106-03-02T00:00:00Z, after the supported instants " + supported}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"project_id":"prj_1","fields":["spend"]}`
			if tc.time != "" {
				body = `{"project_id":"prj_1","fields":["spend"],"time":` + tc.time + `}`
			}
			_, err := engine.New(nil, engine.Options{Clock: clock.NewFake(tc.now)}).Prepare(tc.scope, mustInput(t, body))
			e, ok := apperr.As(err)
			if !ok || e.Status != 400 || e.Code != apperr.CodeInvalidParameter || fmt.Sprint(e.Details) != fmt.Sprint(tc.want) {
				t.Fatalf("%v\nwant 400 invalid_parameter %q", err, tc.want)
			}
		})
	}
}

// ClickHouse 18.16 reads a date or a date-time literal only from 1970-01-01 through 2105-12-31
// (it wraps around silently outside). Every query near either end of the supported instants, in
// zones from UTC-12 to UTC+14, at every kind of granularity, with and without a comparison, is
// either refused (400 naming a time member) or sends only literals inside that range; and the
// ranges a client writes for the first and last supported days in UTC are answered.
func TestQueryBoundsStayInsideClickHouse(t *testing.T) {
	zones := []string{"UTC", "Etc/GMT+12", "America/Sao_Paulo", "Asia/Tokyo", "Pacific/Kiritimati"}
	// The first ones are answered in UTC; the others reach past an end.
	ranges := []string{
		`"start":"1970-01-02","end":"1970-01-04"`, `"start":"1970-01-03","end":"1970-01-05"`,
		`"start":"1970-01-02T00:00:00Z","end":"1970-01-02T05:30:00Z"`,
		`"start":"2105-12-27","end":"2105-12-29"`, `"start":"2105-12-26","end":"2105-12-28"`,
		`"start":"2105-12-29T18:30:00Z","end":"2105-12-30T00:00:00Z"`,
		`"start":"1970-01-01","end":"1970-01-03"`, `"start":"1969-12-31T22:00:00Z","end":"1970-01-01T02:00:00Z"`,
		`"start":"1970-01-01T12:00:00Z","end":"1970-01-02T12:00:00Z"`, `"start":"1970-01-01T00:00:00Z","end":"1970-01-01T06:00:00Z"`,
		`"start":"2105-12-30T12:00:00Z","end":"2105-12-31T00:00:00Z"`,
		`"start":"2105-12-29","end":"2105-12-30"`, `"start":"2105-12-30","end":"2105-12-31"`,
		`"start":"2105-12-31T18:00:00Z","end":"2106-01-01T00:00:00Z"`,
	}
	const inUTC = 6
	grans := []string{"", "15min", "hour", "day", "week", "month", "quarter", "year"}
	compares := []string{"", `,"compare":"previous_period"`, `,"compare":"previous_year"`}
	answered := map[string]bool{}
	for _, zone := range zones {
		scope := engine.Scope{ProjectID: "prj_1", Currency: "BRL", TimeZone: zone, SubHour: true}
		for _, r := range ranges {
			for _, g := range grans {
				for _, cmp := range compares {
					tm := "{" + r + cmp
					if g != "" {
						tm += `,"granularity":"` + g + `"`
					}
					body := `{"project_id":"prj_1","fields":["spend","tx_revenue"],"time":` + tm + `}}`
					p, err := engine.New(nil, engine.Options{}).Prepare(scope, mustInput(t, body))
					if err != nil {
						e, ok := apperr.As(err)
						if !ok || e.Status != 400 || !allTimeMembers(e.Details) {
							t.Fatalf("%s %s: %v", zone, body, err)
						}
						continue
					}
					if zone == "UTC" {
						answered[r] = true
					}
					for _, d := range p.Days() {
						if d.First.Before(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)) || d.After.After(time.Date(2105, 12, 31, 0, 0, 0, 0, time.UTC)) {
							t.Fatalf("%s %s reads the days %v", zone, body, d)
						}
					}
					checkLiterals(t, zone+" "+body, scope, body)
				}
			}
		}
	}
	for _, r := range ranges[:inUTC] {
		if !answered[r] {
			t.Errorf("UTC %s was never answered", r)
		}
	}
}

func allTimeMembers(details []string) bool {
	for _, d := range details {
		if !strings.HasPrefix(d, "time") {
			return false
		}
	}
	return len(details) > 0
}

var (
	dateLiteral     = regexp.MustCompile(`toDate\('([^']*)'\)`)
	dateTimeLiteral = regexp.MustCompile(`toDateTime\('([^']*)', 'UTC'\)`)
	seriesStart     = regexp.MustCompile(`toDateTime\((-?[0-9]+) \+ number`)
)

// checkLiterals compiles body (and its day-span variant) and checks every date and date-time
// its statements send.
func checkLiterals(t *testing.T, name string, scope engine.Scope, body string) {
	t.Helper()
	c, err := engine.Compile(scope, mustInput(t, body), testNow)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	all := []*engine.Compiled{c}
	if c.Spans != nil {
		all = append(all, c.WithDaySpans([]time.Time{time.Date(1970, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(2105, 12, 28, 0, 0, 0, 0, time.UTC)}))
	}
	var sts []*engine.Statement
	for _, c := range all {
		sts = append(sts, c.Spans)
		for _, a := range c.Attempts {
			sts = append(sts, a.Probe, &a.Query, a.OneCurrency, a.Lean, a.Total)
		}
	}
	for _, st := range sts {
		if st == nil {
			continue
		}
		sql, err := engine.Bind(*st)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range dateLiteral.FindAllStringSubmatch(sql, -1) {
			if m[1] < "1970-01-01" || m[1] > "2105-12-31" {
				t.Fatalf("%s sends toDate('%s')", name, m[1])
			}
		}
		for _, m := range dateTimeLiteral.FindAllStringSubmatch(sql, -1) {
			if m[1] < "1970-01-01 00:00:00" || m[1] > "2105-12-31 23:59:59" {
				t.Fatalf("%s sends toDateTime('%s')", name, m[1])
			}
		}
		for _, m := range seriesStart.FindAllStringSubmatch(sql, -1) {
			if n, _ := strconv.ParseInt(m[1], 10, 64); n < 0 {
				t.Fatalf("%s starts a series at %d", name, n)
			}
		}
	}
}

// Facts at the first and the last supported minute are answered on ClickHouse 18.16 under their
// own dates, in UTC and in a zone west of it, by day and by hour, alone and compared.
func TestEdgeInstantsAnswer(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ctx := context.Background()
	first, last := facts.MinTime, facts.MaxTime.Add(-time.Minute)
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(testNow)})
	for _, tc := range []struct {
		zone string
		want map[string]string // body's time → rows
	}{
		{"UTC", map[string]string{
			`{"start":"1970-01-02","end":"1970-01-03","granularity":"day"}`:                      `[{"date":"1970-01-02","leads":3},{"date":"1970-01-03","leads":0}]`,
			`{"start":"2105-12-28","end":"2105-12-29","granularity":"day"}`:                      `[{"date":"2105-12-28","leads":0},{"date":"2105-12-29","leads":5}]`,
			`{"start":"2105-12-29T22:00:00Z","end":"2105-12-30T00:00:00Z","granularity":"hour"}`: `[{"date":"2105-12-29T22:00:00Z","leads":0},{"date":"2105-12-29T23:00:00Z","leads":5}]`,
			`{"start":"2105-12-29","end":"2105-12-29","compare":"previous_period"}`:              `[{"leads":5,"compare":{"leads":0},"change":{"leads":null}}]`,
			`{"start":"1970-01-03","end":"1970-01-03","compare":"previous_period"}`:              `[{"leads":0,"compare":{"leads":3},"change":{"leads":-1}}]`,
		}},
		{"America/Sao_Paulo", map[string]string{
			`{"start":"1970-01-02T00:00:00Z","end":"1970-01-02","granularity":"day"}`: `[{"date":"1970-01-01","leads":3},{"date":"1970-01-02","leads":0}]`,
			`{"start":"2105-12-28","end":"2105-12-29T21:00:00","granularity":"day"}`:  `[{"date":"2105-12-28","leads":0},{"date":"2105-12-29","leads":5}]`,
		}},
	} {
		loc, _ := time.LoadLocation(tc.zone)
		project := "prj_" + strings.ReplaceAll(strings.ToLower(tc.zone), "/", "_")
		fact := func(at time.Time, leads int64) facts.Fact {
			return facts.Fact{ProjectID: project, Time: at, AdEntity: facts.AdEntity{Source: "beta_ads", ConnectionID: "con_a", AccountID: "a", CampaignID: "c", AdsetID: "s", AdID: "d"}, Currency: "BRL", Values: facts.Values{facts.Leads: leads}}
		}
		if err := facts.InsertFacts(ctx, ch.Conn, loc, []facts.Fact{fact(first, 3), fact(last, 5)}); err != nil {
			t.Fatal(err)
		}
		scope := engine.Scope{ProjectID: project, Currency: "BRL", TimeZone: tc.zone, SubHour: true}
		for tm, want := range tc.want {
			res := query(t, svc, scope, `{"project_id":"`+project+`","fields":["leads"],"time":`+tm+`}`)
			if got := asJSON(res.Data); got != want {
				t.Errorf("%s %s:\n got %s\nwant %s", tc.zone, tm, got, want)
			}
		}
	}
}

// A bound that is not on a whole minute (CONTRACT "Query: views") is a 400 naming it: events and
// orders are stored at their minute, and the bound used to be moved silently. Bounds on whole
// minutes pass in every spelling, in zones off the hour too.
func TestQueryTimeOffTheMinute(t *testing.T) {
	kathmandu := engine.Scope{ProjectID: "prj_1", Currency: "BRL", TimeZone: "Asia/Kathmandu"}
	cases := []struct {
		name  string
		scope engine.Scope
		time  string
		want  []string // nil: accepted
	}{
		{"seconds, local", testScope, `{"start":"2024-03-01T10:00:30","end":"2024-03-02"}`, []string{
			"time.start: 2024-03-01T13:00:30Z is not on a whole minute; facts are stored per minute, so the range must start and end on one"}},
		{"a fraction of a second, RFC 3339", testScope, `{"start":"2024-03-01","end":"2024-03-02T10:00:00.5Z"}`, []string{
			"time.end: 2024-03-02T10:00:00.5Z is not on a whole minute; facts are stored per minute, so the range must start and end on one"}},
		{"both", testScope, `{"start":"2024-03-01T10:00:01-03:00","end":"2024-03-01T11:00:59-03:00"}`, []string{
			"time.start: 2024-03-01T13:00:01Z is not on a whole minute; facts are stored per minute, so the range must start and end on one",
			"time.end: 2024-03-01T14:00:59Z is not on a whole minute; facts are stored per minute, so the range must start and end on one"}},
		{"a comparison period", testScope, `{"start":"2024-03-08","end":"2024-03-14","compare":{"start":"2024-03-01T00:00:10Z","end":"2024-03-07"}}`, []string{
			"time.compare.start: 2024-03-01T00:00:10Z is not on a whole minute; facts are stored per minute, so the range must start and end on one"}},
		{"whole minutes", testScope, `{"start":"2024-03-01T10:07","end":"2024-03-01T13:08:00.000Z"}`, nil},
		{"+05:45 days", kathmandu, `{"start":"2024-03-01","end":"2024-03-02","compare":"previous_period"}`, nil},
		{"+05:45 date-times", kathmandu, `{"start":"2024-03-01T10:07:00+05:45","end":"2024-03-01T23:59:00"}`, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"project_id":"prj_1","fields":["tx_revenue"],"time":` + tc.time + `}`
			_, err := engine.New(nil, engine.Options{Clock: clock.NewFake(testNow)}).Prepare(tc.scope, mustInput(t, body))
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := apperr.As(err)
			if !ok || e.Status != 400 || e.Code != apperr.CodeInvalidParameter || fmt.Sprint(e.Details) != fmt.Sprint(tc.want) {
				t.Fatalf("%v\nwant 400 invalid_parameter %q", err, tc.want)
			}
		})
	}
}
