package engine

import (
	"fmt"
	"time"
)

// Granularities in the order the spec lists them.
var Granularities = []string{"5min", "10min", "15min", "30min", "hour", "day", "week", "month", "quarter", "year"}

// granularity is a bucket size and how to compute it in SQL.
type granularity struct {
	name string
	// dayBased buckets come from the stored local day; hour from the stored local hour start;
	// the sub-hourly ones from ts. Instants carry the zone (a literal), so that a fact bucket and
	// a series bucket have the same type.
	dayBased bool
	subHour  bool
	// expr is the bucket over the day column (dayBased), or over hour or ts with %[1]s the
	// quoted zone.
	expr string
}

var granularities = map[string]granularity{
	"5min":    {name: "5min", subHour: true, expr: "toStartOfFiveMinute(ts, %[1]s)"},
	"10min":   {name: "10min", subHour: true, expr: "toDateTime(toStartOfHour(ts, %[1]s) + intDiv(toMinute(ts, %[1]s), 10) * 600, %[1]s)"},
	"15min":   {name: "15min", subHour: true, expr: "toStartOfFifteenMinutes(ts, %[1]s)"},
	"30min":   {name: "30min", subHour: true, expr: "toDateTime(toStartOfHour(ts, %[1]s) + intDiv(toMinute(ts, %[1]s), 30) * 1800, %[1]s)"},
	"hour":    {name: "hour", expr: "toDateTime(hour, %[1]s)"},
	"day":     {name: "day", dayBased: true, expr: "day"},
	"week":    {name: "week", dayBased: true, expr: "toMonday(day)"},
	"month":   {name: "month", dayBased: true, expr: "toStartOfMonth(day)"},
	"quarter": {name: "quarter", dayBased: true, expr: "toStartOfQuarter(day)"},
	"year":    {name: "year", dayBased: true, expr: "toStartOfYear(day)"},
}

// seriesStep is the step of the gap-filling series for hour and finer: every real zone's offset
// is a multiple of 15 minutes, so every local 5-minute boundary is a UTC 5-minute boundary.
const seriesStep = 300

// maxSeriesSteps bounds the gap-filling series (and so the time range of fine granularities).
const maxSeriesSteps = 300_000

// zoneLiteral quotes a zone name that loadZone accepted (letters, digits, _ / + - only).
func zoneLiteral(name string) string { return "'" + name + "'" }

// bucketSQL is the bucket expression over a fact table's columns.
func (g granularity) bucketSQL(zone string) string {
	if g.dayBased {
		return g.expr
	}
	return fmt.Sprintf(g.expr, zoneLiteral(zone))
}

// seriesSQL is a subquery listing every bucket of [start, end) as column bucket, built from the
// same expression as the facts' buckets.
func (g granularity) seriesSQL(zone string, start, end time.Time, loc *time.Location) fragment {
	if g.dayBased {
		first, after := dayRange(start, end, loc)
		return expr("SELECT DISTINCT "+g.expr+" AS bucket FROM (SELECT toDate(?) + number AS day FROM system.numbers LIMIT ?)",
			first.Format("2006-01-02"), int(after.Sub(first).Hours()/24+0.5))
	}
	from, n := seriesSteps(start, end)
	if g.name == "hour" {
		return expr("SELECT DISTINCT "+g.bucketSQL(zone)+" AS bucket FROM (SELECT toStartOfHour(toDateTime(? + number * 300), "+
			zoneLiteral(zone)+") AS hour FROM system.numbers LIMIT ?)", from, n)
	}
	return expr("SELECT DISTINCT "+g.bucketSQL(zone)+" AS bucket FROM (SELECT toDateTime(? + number * 300) AS ts FROM system.numbers LIMIT ?)",
		from, n)
}

// seriesSteps is the first 5-minute UTC boundary at or before start (as Unix seconds) and the
// number of 5-minute steps from it that fall before end.
func seriesSteps(start, end time.Time) (from int64, n int64) {
	from = start.Unix() - start.Unix()%seriesStep
	n = (end.Unix() - from + seriesStep - 1) / seriesStep
	return from, n
}

// seriesLength is how many steps the series of [start, end) takes.
func (g granularity) seriesLength(start, end time.Time, loc *time.Location) int64 {
	if g.dayBased {
		first, after := dayRange(start, end, loc)
		return int64(after.Sub(first).Hours()/24 + 0.5)
	}
	_, n := seriesSteps(start, end)
	return n
}
