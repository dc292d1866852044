package engine_test

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"mtk/engine"
	"mtk/engine/enginetest"
	"mtk/facts"
	"mtk/internal/chdb"
	"mtk/internal/testenv"
)

// The ClickHouse that users run (docker compose, current images) is not the 18.16 this OS ships.
// This test proves the engine on both: it applies the migrations in chDB (the current engine as
// a library, internal/chdb), loads the differential test's facts into both (the rollups filled by
// each engine's own views), runs the statements compiled for the differential test's random
// queries on both and requires the same rows, and runs every golden statement on chDB.

// landingTables are the tables writers fill; the views fill the rest.
var landingTables = []string{"fx_rates", "entities", "facts_raw", "facts_hourly_in", "facts_daily_in", "business_raw", "credits_raw"}

func TestConformanceWithCurrentClickHouse(t *testing.T) {
	ch := testenv.ClickHouse(t)
	ds, err := enginetest.Generate(diffConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Write(context.Background(), ch.Conn); err != nil {
		t.Fatal(err)
	}
	biz := seededBusiness(t, ch.Conn)
	writeCredits(t, ch.Conn, "prj_j", "America/Sao_Paulo", generatedJourneys(11))
	cur, err := chdb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	if err := cur.Migrate(); err != nil {
		t.Fatal(err)
	}
	for _, table := range landingTables {
		rows := ch.Text(t, "SELECT * FROM "+table+" FORMAT TabSeparated")
		if _, err := cur.Query("INSERT INTO "+table+" FORMAT TabSeparated\n"+rows, ""); err != nil {
			t.Fatalf("load %s: %v", table, err)
		}
	}
	// The rollups sum rows in merges, which drop a row whose measures all sum to 0 (signed
	// corrections that cancel): whether such a row is still there, and so whether has_facts sees
	// it, depends on when each engine merged. Both merge everything first.
	bizRollups, creditRollups := rollupTables(facts.BusinessFamily), rollupTables(facts.CreditsFamily)
	for _, table := range slices.Concat([]string{"facts_hourly", "facts_daily"}, bizRollups, creditRollups) {
		if err := ch.Conn.Exec(context.Background(), "OPTIMIZE TABLE "+table+" FINAL"); err != nil {
			t.Fatal(err)
		}
		if _, err := cur.Query("OPTIMIZE TABLE "+table+" FINAL", ""); err != nil {
			t.Fatal(err)
		}
	}
	c := comparer{t: t, ch: ch, cur: cur}
	for _, table := range []string{"facts_hourly", "facts_daily"} { // each engine's views
		c.same("SELECT sum(spend), sum(impressions), sum(tx_revenue), sum(page_views) FROM " + table)
	}
	for _, table := range bizRollups {
		c.same("SELECT count(), sum(tx_revenue), sum(tx_revenue_net), sum(tx_units), sum(page_views) FROM " + table)
	}
	for _, table := range creditRollups {
		c.same("SELECT count(), sum(tx_revenue), sum(tx_count), sum(window_days * tx_revenue), sum(window_days * tx_count) FROM " + table)
	}

	r := rand.New(rand.NewSource(diffSeed))
	for i := 0; i < diffQueries && !t.Failed(); i++ {
		p := pick(r, ds.Projects)
		q := randomQuery(r, ds, p, p.SyncedAt)
		compiled, err := engine.Compile(q.scope, q.in, p.SyncedAt)
		if err != nil {
			t.Fatal(err)
		}
		if compiled.Spans != nil {
			c.sameStatement(compiled.Attempts[0].Query) // it reads the day spans too
			var days []time.Time
			for _, line := range strings.Fields(c.sameStatement(*compiled.Spans)) {
				d, err := time.Parse(time.DateOnly, line)
				if err != nil {
					t.Fatalf("day span %q: %v", line, err)
				}
				days = append(days, d)
			}
			compiled = compiled.WithDaySpans(days)
		}
		for _, a := range compiled.Attempts {
			for _, st := range []*engine.Statement{a.Probe, &a.Query, a.OneCurrency, a.Lean, a.Total} {
				if st != nil {
					c.sameStatement(*st)
				}
			}
		}
	}
	compareAttribution(t, &c)
	br := rand.New(rand.NewSource(diffSeed))
	for i := 0; i < diffQueries/2 && !t.Failed(); i++ {
		q := randomBizQuery(br, biz)
		compiled, err := engine.Compile(bizScope(q.p), q.in, testNow)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range compiled.Attempts {
			for _, st := range []*engine.Statement{a.Probe, &a.Query, a.OneCurrency, a.Lean, a.Total, a.Overlap} {
				if st != nil {
					c.sameStatement(*st)
				}
			}
		}
	}
	for _, g := range goldenCases {
		compiled := compile(t, g.scope, g.body)
		if g.days != nil {
			compiled = compiled.WithDaySpans(g.days)
		}
		for _, a := range compiled.Attempts {
			if _, err := cur.Query(bind(t, a.Query), ""); err != nil {
				t.Errorf("golden %s on current ClickHouse: %v", g.name, err)
			}
			c.golden++
		}
	}
	t.Logf("%d statements compared on ClickHouse 18.16 and current ClickHouse (chDB), %d golden statements run on chDB",
		c.compared, c.golden)
}

// The settings mtk sends exist on both engines (current ClickHouse keeps renamed ones as aliases).
func TestSettingsExistOnBothEngines(t *testing.T) {
	ch := testenv.ClickHouse(t)
	cur, err := chdb.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	names := []string{"insert_distributed_sync", "distributed_product_mode"} // internal/db, Options.Cluster
	for name := range engine.New(nil, engine.Options{}).Settings("facts_daily") {
		names = append(names, name)
	}
	slices.Sort(names)
	list := "'" + strings.Join(names, "', '") + "'"
	old := ch.Text(t, "SELECT name FROM system.settings WHERE name IN ("+list+") ORDER BY name FORMAT TabSeparated")
	now, err := cur.Query("SELECT name FROM system.settings WHERE name IN ("+list+") ORDER BY name", "")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(names, "\n") + "\n"
	if old != want || now != want {
		t.Fatalf("settings on 18.16:\n%s\non current ClickHouse:\n%s\nwant:\n%s", old, now, want)
	}
}

// comparer runs statements on both engines and requires the same output.
type comparer struct {
	t                testing.TB
	ch               testenv.CH
	cur              *chdb.DB
	compared, golden int
}

func bind(t testing.TB, st engine.Statement) string {
	t.Helper()
	sql, err := engine.Bind(st)
	if err != nil {
		t.Fatal(err)
	}
	return sql
}

func (c *comparer) sameStatement(st engine.Statement) string { return c.same(bind(c.t, st)) }

// same runs sql on both engines and returns the rows they agree on, as text: the values 18.16
// returns through the driver, printed as chDB prints them (instants as Unix seconds, since 18.16
// prints a local time that does not exist, such as a midnight skipped by DST, differently from
// current ClickHouse; decimals with their scale; the elements of an array, which groupUniqArray
// gives in no set order, sorted). Text, never a value, is normalized.
func (c *comparer) same(sql string) string {
	c.t.Helper()
	c.compared++
	old := normalize(c.native(sql))
	out, err := c.cur.Query(sql+" SETTINGS output_format_decimal_trailing_zeros = 1, date_time_output_format = 'unix_timestamp'", "TabSeparated")
	if err != nil {
		c.t.Fatalf("current ClickHouse: %v\n%s", err, sql)
	}
	if now := normalize(out); now != old {
		a, b := strings.Split(old, "\n"), strings.Split(now, "\n")
		i := 0
		for i < len(a) && i < len(b) && a[i] == b[i] {
			i++
		}
		c.t.Fatalf("the engines disagree on\n%s\nfrom row %d (of %d and %d):\n18.16:   %q\ncurrent: %q", sql, i, len(a), len(b),
			a[min(i, len(a)-1)], b[min(i, len(b)-1)])
	}
	return old
}

// native runs sql on 18.16 through the driver and prints its rows as TabSeparated with instants
// as Unix seconds.
func (c *comparer) native(sql string) string {
	c.t.Helper()
	rows, err := c.ch.Conn.Query(context.Background(), sql)
	if err != nil {
		c.t.Fatalf("18.16: %v\n%s", err, sql)
	}
	defer rows.Close()
	types := rows.ColumnTypes()
	var b strings.Builder
	for rows.Next() {
		dests := make([]any, len(types))
		for i, ct := range types {
			dests[i] = reflect.New(ct.ScanType()).Interface()
		}
		if err := rows.Scan(dests...); err != nil {
			c.t.Fatal(err)
		}
		for i, d := range dests {
			if i > 0 {
				b.WriteByte('\t')
			}
			b.WriteString(text(reflect.ValueOf(d).Elem().Interface(), types[i].DatabaseTypeName()))
		}
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		c.t.Fatal(err)
	}
	return b.String()
}

// text prints one value of a column of type typ as chDB's TabSeparated does.
func text(v any, typ string) string {
	switch x := v.(type) {
	case time.Time:
		if typ == "Date" {
			return x.Format(time.DateOnly)
		}
		return strconv.FormatInt(x.Unix(), 10)
	case decimal.Decimal:
		_, scale, _ := strings.Cut(strings.TrimSuffix(typ, ")"), ", ")
		n, _ := strconv.Atoi(scale)
		return x.StringFixed(int32(n))
	case []string:
		return "[" + strings.Join(quoteAll(x), ",") + "]"
	case []time.Time: // Array(Date): the day spans (span_days)
		days := make([]string, len(x))
		for i, d := range x {
			days[i] = d.Format(time.DateOnly)
		}
		return "[" + strings.Join(quoteAll(days), ",") + "]"
	}
	return fmt.Sprint(v)
}

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = "'" + x + "'"
	}
	return out
}

func normalize(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		fields := strings.Split(l, "\t")
		for j, f := range fields {
			if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") && len(f) > 2 {
				elems := strings.Split(f[1:len(f)-1], ",")
				slices.Sort(elems)
				fields[j] = "[" + strings.Join(elems, ",") + "]"
			}
		}
		lines[i] = strings.Join(fields, "\t")
	}
	return strings.Join(lines, "\n")
}

// rollupTables are the names of f's tables filled by views (its rollups, every form).
func rollupTables(f *facts.Family) []string {
	var out []string
	for _, t := range f.Tables {
		if t.Views != nil {
			out = append(out, t.Name)
		}
	}
	return out
}
