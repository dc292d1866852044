package facts

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ClickHouse/clickhouse-go/v2"
	"github.com/ClickHouse/clickhouse-go/v2/lib/driver"
)

// A sync batch (see adsync/) is written with one INSERT per landing table, every row carrying the
// batch's id, into tables whose rows are never collapsed (schema/clickhouse/0006). After a
// failure, MissingBatchFacts tells which of a batch's rows ClickHouse lacks, so that completing
// the batch writes each row exactly once.
//
// Facts known only per hour or per day (an ad network's hourly or daily insights) land in
// facts_hourly_in or facts_daily_in, whose views feed the rollups, skipping facts_raw: the finer
// tables then hold no data for those periods and the fallback answers from the table that has
// it, instead of showing a whole hour or day at its first minute. Every rollup still holds the
// sum of every fact of its period.

// Landing is a table that sync batches land in.
type Landing string

// The landing tables.
const (
	// LandingRaw is facts_raw: a fact at its minute, in both rollups through facts_raw's views.
	LandingRaw Landing = "facts_raw"
	// LandingHourly is facts_hourly_in: a fact known per hour, at its Time's local hour and day
	// of the project's zone, in facts_hourly and facts_daily through its views.
	LandingHourly Landing = "facts_hourly_in"
	// LandingDaily is facts_daily_in: a fact known per day, on its Time's calendar date (the
	// year, month and day in Time's own location: the caller decides which zone's day it is),
	// in facts_daily through its view.
	LandingDaily Landing = "facts_daily_in"
)

// batchQuerySeconds bounds the statement that reads a batch's stored rows.
const batchQuerySeconds = 60

// timeColumns are the landing's stored times, the first one (its sorting key's) first and the
// Date column last.
func (l Landing) timeColumns() []string {
	switch l {
	case LandingRaw:
		return []string{"ts", "hour", "day"}
	case LandingHourly:
		return []string{"hour", "day"}
	}
	return []string{"day"}
}

func (l Landing) columns() string {
	return "project_id, " + strings.Join(l.timeColumns(), ", ") + ", " + dimColumns + ", " + Columns(FactsFamily.Measures, "")
}

// times are f's stored times in the landing, for a project in zone loc.
func (l Landing) times(f Fact, loc *time.Location) []any {
	switch l {
	case LandingRaw:
		minute, hour, day := Times(f.Time, loc)
		return []any{minute, hour, day}
	case LandingHourly:
		_, hour, day := Times(f.Time, loc)
		return []any{hour, day}
	}
	y, m, d := f.Time.Date()
	return []any{time.Date(y, m, d, 0, 0, 0, 0, time.UTC)}
}

// row is f as the landing stores it, in columns order.
func (l Landing) row(f Fact, loc *time.Location) []any {
	return append(append(append([]any{f.ProjectID}, l.times(f, loc)...), entityDims(f.AdEntity, f.Currency)...), f.Values.Pick(FactsFamily.Measures)...)
}

// key identifies a stored row's values: instants as Unix seconds, the Date as its date (the
// driver may return it at midnight of another zone than it was written at).
func (l Landing) key(row []any) string {
	var b strings.Builder
	last := len(l.timeColumns())
	for i, v := range row {
		switch x := v.(type) {
		case time.Time:
			if i == last {
				b.WriteString(x.Format(time.DateOnly))
			} else {
				b.WriteString(strconv.FormatInt(x.Unix(), 10))
			}
		default:
			fmt.Fprint(&b, x)
		}
		b.WriteByte(0)
	}
	return b.String()
}

// scanRow makes scan destinations for one stored row and a function that reads them back.
func (l Landing) scanRow() (dest []any, values func() []any) {
	n := len(l.timeColumns())
	strs := make([]string, 8)
	times := make([]time.Time, n)
	nums := make([]int64, len(FactsFamily.Measures))
	dest = []any{&strs[0]}
	for i := range times {
		dest = append(dest, &times[i])
	}
	for i := 1; i < len(strs); i++ {
		dest = append(dest, &strs[i])
	}
	for i := range nums {
		dest = append(dest, &nums[i])
	}
	return dest, func() []any {
		out := []any{strs[0]}
		for _, t := range times {
			out = append(out, t)
		}
		for _, s := range strs[1:] {
			out = append(out, s)
		}
		for _, x := range nums {
			out = append(out, x)
		}
		return out
	}
}

// InsertBatch writes facts of batch batchID, of projects in zone loc, into the landing table as
// one INSERT.
func InsertBatch(ctx context.Context, conn driver.Conn, l Landing, loc *time.Location, batchID string, facts []Fact) error {
	if len(facts) == 0 {
		return nil
	}
	batch, err := conn.PrepareBatch(ctx, "INSERT INTO "+string(l)+" (batch_id, "+l.columns()+")")
	if err != nil {
		return fmt.Errorf("facts: insert %s: %w", l, err)
	}
	defer batch.Close()
	for _, f := range facts {
		if err := batch.Append(append([]any{batchID}, l.row(f, loc)...)...); err != nil {
			return fmt.Errorf("facts: insert %s: %w", l, err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("facts: insert %s: %w", l, err)
	}
	return nil
}

// MissingBatchFacts returns the facts of batch batchID (as InsertBatch was given them) whose
// rows the landing table does not hold. Rows are compared by value, as a multiset: two equal
// facts need two stored rows. The read is bounded by the facts' projects and time range so that
// the sorting key prunes.
func MissingBatchFacts(ctx context.Context, conn driver.Conn, l Landing, loc *time.Location, batchID string, facts []Fact) ([]Fact, error) {
	if len(facts) == 0 {
		return nil, nil
	}
	rows := make([][]any, len(facts))
	projects := map[string]bool{}
	var first, last time.Time
	for i, f := range facts {
		rows[i] = l.row(f, loc)
		projects[f.ProjectID] = true
		t := rows[i][1].(time.Time)
		if i == 0 || t.Before(first) {
			first = t
		}
		if i == 0 || t.After(last) {
			last = t
		}
	}
	var ids []any
	for p := range projects {
		ids = append(ids, p)
	}
	tcol := l.timeColumns()[0]
	bound := "?"
	args := []any{clickhouse.GroupSet{Value: ids}, first, last, batchID}
	if l == LandingDaily {
		bound = "toDate(?)"
		args[1], args[2] = first.Format(time.DateOnly), last.Format(time.DateOnly)
	}
	ctx = clickhouse.Context(ctx, clickhouse.WithSettings(clickhouse.Settings{"max_execution_time": batchQuerySeconds}))
	res, err := conn.Query(ctx, "SELECT "+l.columns()+" FROM "+string(l)+" WHERE project_id IN ? AND "+
		tcol+" >= "+bound+" AND "+tcol+" <= "+bound+" AND batch_id = ?", args...)
	if err != nil {
		return nil, fmt.Errorf("facts: read batch from %s: %w", l, err)
	}
	defer res.Close()
	stored := map[string]int{}
	dest, values := l.scanRow()
	for res.Next() {
		if err := res.Scan(dest...); err != nil {
			return nil, fmt.Errorf("facts: read batch from %s: %w", l, err)
		}
		stored[l.key(values())]++
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("facts: read batch from %s: %w", l, err)
	}
	var missing []Fact
	for i, f := range facts {
		if k := l.key(rows[i]); stored[k] > 0 {
			stored[k]--
			continue
		}
		missing = append(missing, f)
	}
	return missing, nil
}
