package api_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"

	"mtk/internal/config"
)

// statementLog is the env's ClickHouse connection, noting the statements the engine sends.
type statementLog struct {
	driver.Conn
	mu   sync.Mutex
	sent []string
}

func (l *statementLog) note(sql string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sent = append(l.sent, sql)
}

func (l *statementLog) Query(ctx context.Context, sql string, args ...any) (driver.Rows, error) {
	l.note(sql)
	return l.Conn.Query(ctx, sql, args...)
}

func (l *statementLog) QueryRow(ctx context.Context, sql string, args ...any) driver.Row {
	l.note(sql)
	return l.Conn.QueryRow(ctx, sql, args...)
}

func (l *statementLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.sent
	l.sent = nil
	return out
}

// TestQueryExplain: over data written as sync writes it (minutes today, hours for 7 days, days
// before), explain names the table and granularity of each part of the range (raw, hourly,
// daily, and an hour series cut by the days known per day only), lists the bound statements,
// the warnings and whether the cache holds the answer, and never runs the answer statement.
func TestQueryExplain(t *testing.T) {
	e := newEnv(t)
	w := cacheWorld{e: e, ow: newObjectsWorld(t, e)}
	log := &statementLog{Conn: e.ch}
	e.ch = log
	e.cfg.ClickHouseHTTPURL = config.ReadsNative // every read through log, so that none escapes the check
	e.rebuild()
	e.heard()
	type explanation struct {
		Plan []struct {
			Start, End, Table string
			Granularity       *string
		} `json:"plan"`
		SQL      []string `json:"sql"`
		Warnings []string `json:"warnings"`
		Cache    string   `json:"cache"`
	}
	explain := func(body string) explanation {
		t.Helper()
		var in map[string]any
		if err := json.Unmarshal([]byte(body), &in); err != nil {
			t.Fatal(err)
		}
		in["project_id"] = w.ow.tn.project.ID
		r := e.do("POST", "/v3/query/explain", in, bearer(w.ow.readKey)...)
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", body, r.Status, r.Body)
		}
		var ex explanation
		if err := json.Unmarshal(r.Body, &ex); err != nil {
			t.Fatal(err)
		}
		for _, sql := range log.take() {
			if strings.Contains(sql, "LIMIT ? OFFSET ?") || (strings.HasPrefix(sql, "SELECT count() FROM (SELECT ") && !strings.HasPrefix(sql, "SELECT count() FROM (SELECT 1 FROM")) {
				t.Fatalf("%s: explain ran an answer statement: %s", body, sql)
			}
		}
		return ex
	}
	type part struct{ start, end, table, gran string }
	for _, c := range []struct {
		name, body string
		want       []part
		warns      string
	}{
		{"raw", `{"fields":["tx_revenue"],"time":{"start":"2026-03-10T09:30:00","end":"2026-03-10T11:00:00","granularity":"15min"}}`,
			[]part{{"2026-03-10T09:30:00-03:00", "2026-03-10T11:00:00-03:00", "facts_raw", "15min"}}, ""},
		{"hourly", `{"fields":["spend"],"time":{"start":"2026-03-08","end":"2026-03-09","granularity":"hour"}}`,
			[]part{{"2026-03-08T00:00:00-03:00", "2026-03-10T00:00:00-03:00", "facts_hourly", "hour"}}, ""},
		{"daily", `{"fields":["spend","clicks"],"time":{"start":"2026-03-01","end":"2026-03-09","granularity":"day"},"metadata":{"level":"campaign"}}`,
			[]part{{"2026-03-01T00:00:00-03:00", "2026-03-10T00:00:00-03:00", "facts_daily", "day"}}, ""},
		{"hour series over days known per day", `{"fields":["spend"],"time":{"start":"2026-03-01","end":"2026-03-09","granularity":"hour"}}`,
			[]part{{"2026-03-01T00:00:00-03:00", "2026-03-03T00:00:00-03:00", "facts_daily", "day"},
				{"2026-03-03T00:00:00-03:00", "2026-03-10T00:00:00-03:00", "facts_hourly", "hour"}},
			"are known per day only"},
		{"totals", `{"fields":["spend"],"time":{"start":"2026-03-01","end":"2026-03-09"}}`,
			[]part{{"2026-03-01T00:00:00-03:00", "2026-03-10T00:00:00-03:00", "facts_daily", ""}}, ""},
	} {
		ex := explain(c.body)
		var got []part
		for _, p := range ex.Plan {
			g := ""
			if p.Granularity != nil {
				g = *p.Granularity
			}
			got = append(got, part{p.Start, p.End, p.Table, g})
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: plan %+v, want %+v", c.name, got, c.want)
		} else {
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("%s: plan %+v, want %+v", c.name, got, c.want)
				}
			}
		}
		if len(ex.SQL) == 0 || strings.Contains(strings.Join(ex.SQL, "\n"), "?") {
			t.Errorf("%s: statements not bound: %q", c.name, ex.SQL)
		}
		if !strings.Contains(strings.Join(ex.SQL, "\n"), w.ow.tn.project.ID) {
			t.Errorf("%s: the statements do not name the project: %q", c.name, ex.SQL)
		}
		if c.warns != "" && !strings.Contains(strings.Join(ex.Warnings, "\n"), c.warns) {
			t.Errorf("%s: warnings %q, want %q", c.name, ex.Warnings, c.warns)
		}
		// The cache holds the answer once it has been asked.
		if ex.Cache != "miss" {
			t.Errorf("%s: cache %q before the query", c.name, ex.Cache)
		}
		w.ask(t, c.body)
		log.take()
		if ex := explain(c.body); ex.Cache != "hit" {
			t.Errorf("%s: cache %q after the query", c.name, ex.Cache)
		}
	}
	// Explain refuses what the query refuses, in the same envelope.
	wantError(t, e.do("POST", "/v3/query/explain", `{"project_id":"`+w.ow.tn.project.ID+`","fields":["nope"]}`, bearer(w.ow.readKey)...),
		400, "validation_error", "invalid_parameter")
	wantError(t, e.do("POST", "/v3/query/explain", `{"project_id":"`+w.ow.tn.project.ID+`","fields":["spend"]}`, bearer(w.ow.tn.trackKey)...),
		403, "authorization_error", "insufficient_scope")
}
