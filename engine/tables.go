package engine

import (
	"fmt"
	"time"

	"mtk/facts"
)

// table is one resolution of the fact tables.
type table int

const (
	tableRaw table = iota
	tableHourly
	tableDaily
)

var tableLabels = [...]string{"raw", "hourly", "daily"}

func (t table) label() string { return tableLabels[t] }

// resolutions are a family's tables by table (raw, hourly, daily), as at names them.
func resolutions(at func(facts.Resolution) string) [3]string {
	return [3]string{tableRaw: at(facts.Minute), tableHourly: at(facts.Hour), tableDaily: at(facts.Day)}
}

// creditTables hold the attribution models' credits at each resolution, in the project's zone
// like the ad facts (schema/clickhouse/0011_credits.sql).
var creditTables = resolutions(facts.CreditsFamily.At)

func (t table) creditsName() string { return creditTables[t] }

// creditTrafficTables are the credits' rollups without the ad entity, keyed by the touch's
// traffic dimensions only (schema/clickhouse/0016), "" at a resolution that has none.
var creditTrafficTables = resolutions(facts.CreditsFamily.ByTrafficAt)

// timeFilter is the table's time condition on its raw stored time column, with bounds computed
// here. A coarser table than the range allows widens it to whole hours or days.
func (t table) timeFilter(start, end time.Time, loc *time.Location) fragment {
	switch t {
	case tableDaily:
		first, after := dayRange(start, end, loc)
		return expr("day >= toDate(?) AND day < toDate(?)", first.Format("2006-01-02"), after.Format("2006-01-02"))
	case tableHourly:
		s, e := facts.HourStart(start, loc), facts.HourStart(end, loc)
		if e.Before(end) {
			e = e.Add(time.Hour)
		}
		return expr("hour >= ? AND hour < ?", s.UTC(), e.UTC())
	default:
		return expr("ts >= ? AND ts < ?", start.UTC(), end.UTC())
	}
}

// probeFilter is the table's time condition on the whole hours or days inside [start, end):
// data in the partial hours or days at the edges (outside the range) must not make a coarser
// table look like it holds the range.
func (t table) probeFilter(start, end time.Time, loc *time.Location) fragment {
	switch t {
	case tableDaily:
		first, after := facts.LocalDay(start, loc), facts.LocalDay(end, loc)
		if !dayAligned(start, loc) {
			first = first.AddDate(0, 0, 1)
		}
		return expr("day >= toDate(?) AND day < toDate(?)", first.Format("2006-01-02"), after.Format("2006-01-02"))
	case tableHourly:
		s, e := facts.HourStart(start, loc), facts.HourStart(end, loc)
		if s.Before(start) {
			s = s.Add(time.Hour)
		}
		return expr("hour >= ? AND hour < ?", s.UTC(), e.UTC())
	}
	return t.timeFilter(start, end, loc)
}

// chooseTable is the coarsest table that answers [start, end) at granularity g exactly: days
// and coarser from the daily table when the range is on whole local days, hour (and totals)
// from the hourly one when it is on whole local hours, anything else from raw.
func chooseTable(g *granularity, start, end time.Time, loc *time.Location) table {
	if g != nil && g.subHour {
		return tableRaw
	}
	if (g == nil || g.dayBased) && dayAligned(start, loc) && dayAligned(end, loc) {
		return tableDaily
	}
	if hourAligned(start, loc) && hourAligned(end, loc) {
		return tableHourly
	}
	return tableRaw
}

// coarsen is the granularity a coarser table answers g with.
func coarsen(g *granularity, t table) *granularity {
	if g == nil {
		return nil
	}
	switch {
	case t == tableDaily && !g.dayBased:
		d := granularities["day"]
		return &d
	case t == tableHourly && g.subHour:
		h := granularities["hour"]
		return &h
	}
	return g
}

// fallbackWarning says which table answered instead of from, and what that changed.
func fallbackWarning(from, to table, asked, got *granularity, start, end time.Time, loc *time.Location) string {
	w := fmt.Sprintf("no %s data for this range; answered from the %s table", from.label(), to.label())
	if asked != nil && got.name != asked.name {
		w += " at " + got.name + " granularity"
	}
	if to == tableDaily && !(dayAligned(start, loc) && dayAligned(end, loc)) {
		w += ", with the range widened to whole days"
	} else if to == tableHourly && !(hourAligned(start, loc) && hourAligned(end, loc)) {
		w += ", with the range widened to whole hours"
	}
	return w
}
