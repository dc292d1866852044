package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/internal/clock"
	"mtk/internal/testenv"
)

// statementsNow is "now" for the statement counts: 12:00 in New York.
var statementsNow = time.Date(2024, 3, 16, 16, 0, 0, 0, time.UTC)

// statementsConfig shapes one project's ad facts as sync leaves them at statementsNow: minutes
// today, hours for the 7 days before, days before those. Its orders are in several currencies.
var statementsConfig = enginetest.Config{Seed: 7, Projects: []enginetest.ProjectSpec{
	{ID: "prj_st", TimeZone: "America/New_York", Currency: "USD", Start: day(2024, 2, 20), Days: 26, SyncedAt: statementsNow},
}}

// TestOneStatementPerAnswer counts the ClickHouse statements of the dashboard's uncached answers
// (engine.Timing): one each, the hourly series of today included, whose day spans its own
// statement reads. An hourly series that reaches days known per day only takes a second
// statement, the one that answers with them.
func TestOneStatementPerAnswer(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds, err := enginetest.Generate(statementsConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(context.Background(), ch.Conn); err != nil {
		t.Fatal(err)
	}
	svc := engine.New(ch.Conn, engine.Options{HTTP: ch.Reads(t), Clock: clock.NewFake(statementsNow)})
	scope := scopeOf(ds.Projects[0])
	// A project whose facts mix currencies learns it from its first money query, which then
	// sends its converting statement after the one-currency one (Attempt.OneCurrency); the
	// service remembers it for a while. Counted from then on: a dashboard's steady state.
	if _, err := svc.Query(context.Background(), scope, mustInput(t, `{"project_id":"prj_st","fields":["tx_revenue"],"time":{"range":"last_7_days"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, body string
		statements int
		warning    string
	}{
		{"cards", `{"project_id":"prj_st","fields":["spend","impressions","clicks","ctr","cpc","tx_revenue","roas"],"time":{"range":"last_7_days"}}`, 1, ""},
		{"daily", `{"project_id":"prj_st","fields":["spend","impressions","clicks","tx_revenue","roas"],"time":{"range":"last_7_days","granularity":"day"}}`, 1, ""},
		{"campaigns", `{"project_id":"prj_st","fields":["spend","impressions","clicks","ctr","cpc","tx_count","tx_revenue","roas"],"time":{"range":"last_7_days"},"metadata":{"level":"campaign"},"order":{"spend":"desc"}}`, 1, ""},
		{"today_hourly", `{"project_id":"prj_st","fields":["spend","impressions","clicks","page_views","leads","tx_count","tx_revenue"],"time":{"range":"today","granularity":"hour"}}`, 1, ""},
		{"hourly_7_days", `{"project_id":"prj_st","fields":["spend","clicks","leads"],"time":{"start":"2024-03-09","end":"2024-03-15","granularity":"hour"}}`, 1, ""},
		{"hourly_with_day_spans", `{"project_id":"prj_st","fields":["spend","clicks","leads"],"time":{"start":"2024-03-05","end":"2024-03-15","granularity":"hour"}}`, 2, "known per day only"},
	} {
		var timing engine.Timing
		res, err := svc.Query(engine.WithTiming(context.Background(), &timing), scope, mustInput(t, c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if timing.Statements() != c.statements {
			t.Errorf("%s: %d statements, want %d", c.name, timing.Statements(), c.statements)
		}
		if len(res.Data) == 0 {
			t.Errorf("%s: no rows", c.name)
		}
		if got := strings.Join(res.Warnings, "; "); (c.warning == "") != (got == "") || !strings.Contains(got, c.warning) {
			t.Errorf("%s: warnings %q, want one with %q", c.name, got, c.warning)
		}
	}
}
